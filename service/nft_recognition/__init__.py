"""nft_recognition: recognition at catalogue scale (issue 48), beside the on-device tracker.

An app's Session recognises among the ~1,000 targets a device holds; this package answers which of
a catalogue's targets (10^4–10^6) a frame shows, from the keypoints and SURF descriptors the
Session already computed. Pieces so far:

- catalogue_index.CatalogueIndex: a FAISS index over every target's descriptors that shortlists
  the targets a query's descriptors vote for; targets are added and removed while it serves.
- words.Vocabulary / words.WordIndex: the shortlist by visual words (a catalogue of the factory
  "words"): one sparse tf-idf vector per target, so a query's cost and the index's memory follow
  the query's words and the targets, not every descriptor of every target; the highest cosines
  re-ranked by their word matches that fit one homography (WordIndex.spatial_scores()).
- verification.verify_target: geometric verification of one shortlisted target with the
  project's own GPU matcher (nft.GpuMatcher, ratio test) and OpenCV's RANSAC homography.
- catalogue / build: a catalogue folder in shards, each trained by one task (here or a Slurm
  job array).
- shard / recognizer / http_api / cli: the service — shards as Dask actors on the cluster's
  workers, a FastAPI front, `nft-recognition serve DIR`.
- client: RecognitionClient (the HTTP calls) and SessionRecognition (an nft.Session that asks the
  service when it finds nothing of its own, off the camera thread, rate-limited).

Nothing here is imported by the nft module: an app that does not use the service needs none of
its dependencies (Debian's python3-faiss and python3-scipy; scripts/install-deps.sh service).
"""

from .catalogue import Catalogue, Entry, read_list
from .catalogue_index import CatalogueIndex, Nearest, Vote, merge_nearest, votes_of
from .verification import Verification, verify_target
from .words import Vocabulary, WordIndex, layout_of, word_entry

__all__ = ["Catalogue", "Entry", "read_list", "CatalogueIndex", "Nearest", "Vote", "merge_nearest", "votes_of",
           "Verification", "verify_target", "Vocabulary", "WordIndex", "layout_of", "word_entry"]
