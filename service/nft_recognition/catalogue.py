"""A catalogue on disk: the targets of a recognition service, split into shards.

    DIR/catalogue.json            what was asked for: the entries (name, image, width), the shard
                                  count, the descriptor index's factory
    DIR/shard-007/targets.json    the shard's trained targets (id, name, model file, size) and the
                                  entries it could not train, with why
    DIR/shard-007/index.faiss     the shard's descriptor index (CatalogueIndex.save()), or with
    DIR/shard-007/words.npz       the factory "words", its targets' word vectors (words.WordIndex)
    DIR/vocabulary.npz            the words of a "words" catalogue (words.Vocabulary), trained
                                  before the shards on a sample of the entries
    DIR/shard-007/models/ID.nftm  each target's model (nft.TrainedTarget.save(): what the app's
                                  Session downloads, GET /targets/ID, and tracks)

Entry i of the catalogue (from 0) is target id i + 1 and belongs to shard i mod shards, so the
array tasks that train the shards need nothing from each other. Every file is written to a
temporary name and renamed into place: a task that fails leaves the last complete state.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Dict, List, Optional

FORMAT = "nft-catalogue"
WORDS = "words"  # the factory of a catalogue shortlisted by visual words (words.py), not a FAISS index
VERSION = 1


@dataclasses.dataclass(frozen=True)
class Entry:
    """One target asked for: its name, image file (absolute) and printed width in metres (0: the
    trainer's default)."""

    name: str
    image: str
    width_m: float = 0.0


def write_json(path: str, value) -> None:
    """Writes `value` as JSON to `path` through a temporary file renamed into place.

    Raises OSError naming the file."""
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(value, f, indent=1)
            f.write("\n")
        os.replace(tmp, path)
    except OSError as e:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise OSError(f"{path}: cannot write: {e}") from e


def read_json(path: str, what: str):
    """Reads a JSON file; raises FileNotFoundError or ValueError naming the file and `what` it is."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file (the {what})")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: the {what} is not valid JSON: {e}") from e


def read_list(path: str) -> List[Entry]:
    """Reads a target list in nft_train --list's format: one target per line, `name image
    [width_m]`, separated by spaces or tabs, '#' starting a comment, image paths relative to the
    list file's folder (scripts/make-distractors.py writes one). Curved targets (key=value
    options) are not part of a catalogue yet.

    Raises FileNotFoundError for a missing list; ValueError naming the file and line for a line
    without an image, a width that is not a number ≥ 0, a key=value option, or a repeated name."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such target list")
    base = os.path.dirname(os.path.abspath(path))
    entries: List[Entry] = []
    names = set()
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fields = line.split("#", 1)[0].split()
            if not fields:
                continue
            where = f"{path}:{number}"
            if len(fields) < 2:
                raise ValueError(f"{where}: expected 'name image [width_m]', got '{line.strip()}'")
            if any("=" in x for x in fields[2:]):
                raise ValueError(f"{where}: '{' '.join(fields[2:])}': curved targets (key=value) are not part of a "
                                 "catalogue yet; planar targets only")
            if len(fields) > 3:
                raise ValueError(f"{where}: expected 'name image [width_m]', got {len(fields)} fields")
            width = 0.0
            if len(fields) == 3:
                try:
                    width = float(fields[2])
                except ValueError:
                    width = -1.0
                if not width >= 0:
                    raise ValueError(f"{where}: width_m '{fields[2]}': expected a width in metres >= 0")
            if fields[0] in names:
                raise ValueError(f"{where}: the name '{fields[0]}' is taken by an earlier line")
            names.add(fields[0])
            entries.append(Entry(fields[0], os.path.normpath(os.path.join(base, fields[1])), width))
    return entries


def model_file(target_id: int) -> str:
    """Where a target's model is, relative to its shard's folder: models/ID.nftm."""
    return os.path.join("models", f"{int(target_id)}.nftm")


def trained_entry(target_id: int, name: str, trained) -> dict:
    """A shard's entry (targets.json) of a target trained by nft.train_target() (`trained`, an
    nft.TrainedTarget): id, name, model file, working-image width and height (pixels), keypoints,
    width_m (metres)."""
    h, w = trained.image.shape[:2]
    return {"id": int(target_id), "name": name, "model": model_file(target_id), "width": w, "height": h,
            "keypoints": int(len(trained.descriptors)), "width_m": trained.width_m}


def shard_name(shard: int) -> str:
    """The folder of shard `shard` (from 0): shard-000, shard-001, ..."""
    return f"shard-{shard:03d}"


class Catalogue:
    """A catalogue folder (see the module's docstring). Catalogue(DIR) reads DIR/catalogue.json;
    Catalogue.create() writes a new one.

    Raises FileNotFoundError or ValueError naming the file and what is wrong with it."""

    def __init__(self, folder: str) -> None:
        self.folder = os.path.abspath(folder)
        plan = read_json(os.path.join(self.folder, "catalogue.json"), "catalogue description")
        if not isinstance(plan, dict) or plan.get("format") != FORMAT:
            raise ValueError(f"{self.folder}/catalogue.json: not a catalogue (expected \"format\": \"{FORMAT}\")")
        if plan.get("version") != VERSION:
            raise ValueError(f"{self.folder}/catalogue.json: version {plan.get('version')}, this service reads {VERSION}")
        try:
            self.shards = int(plan["shards"])
            self.factory = str(plan["factory"])
            self.entries = [Entry(str(e["name"]), str(e["image"]), float(e["width_m"])) for e in plan["entries"]]
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"{self.folder}/catalogue.json: missing or malformed field: {e}") from e
        if self.shards < 1:
            raise ValueError(f"{self.folder}/catalogue.json: shards {self.shards}, expected >= 1")

    @staticmethod
    def create(folder: str, entries: List[Entry], shards: int, factory: str = "Flat") -> "Catalogue":
        """Writes DIR/catalogue.json for `entries` split into `shards` shards (the folder is made).

        Raises ValueError for shards < 1, no entries, or a folder that already holds a catalogue
        (so a build never mixes into an older one); OSError when it cannot be written."""
        if shards < 1:
            raise ValueError(f"shards: expected >= 1, got {shards}")
        if not entries:
            raise ValueError("entries: the target list is empty")
        path = os.path.join(folder, "catalogue.json")
        if os.path.exists(path):
            raise ValueError(f"{path}: a catalogue is already there (choose another --out or remove it)")
        os.makedirs(folder, exist_ok=True)
        write_json(path, {"format": FORMAT, "version": VERSION, "shards": shards, "factory": factory,
                          "entries": [dataclasses.asdict(e) for e in entries]})
        return Catalogue(folder)

    @property
    def uses_words(self) -> bool:
        """Is the shortlist by visual words (factory "words": a vocabulary and word vectors)
        rather than a FAISS index over every descriptor?"""
        return self.factory == WORDS

    @property
    def vocabulary_path(self) -> str:
        """DIR/vocabulary.npz: the words of a "words" catalogue."""
        return os.path.join(self.folder, "vocabulary.npz")

    def shard_folder(self, shard: int) -> str:
        """The folder of one shard (absolute)."""
        return os.path.join(self.folder, shard_name(shard))

    def entries_of(self, shard: int) -> Dict[int, Entry]:
        """The entries shard `shard` trains, by target id (entry i: id i + 1, shard i mod shards)."""
        return {i + 1: e for i, e in enumerate(self.entries) if i % self.shards == shard}

    def shard_report(self, shard: int) -> Optional[dict]:
        """The shard's targets.json when its training finished, else None."""
        path = os.path.join(self.shard_folder(shard), "targets.json")
        return read_json(path, f"report of {shard_name(shard)}") if os.path.exists(path) else None

    def missing_shards(self) -> List[int]:
        """The shards whose training has not finished (no targets.json yet)."""
        return [s for s in range(self.shards) if self.shard_report(s) is None]
