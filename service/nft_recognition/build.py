"""Training a catalogue's shards: one shard per task, on this machine or as a Slurm job array.

A shard task trains its entries with the project's trainer (nft.train_target: scale-aware FAST and
SURF-ES, as nft_train does), saves each model, builds the shard's shortlist index (CatalogueIndex,
FAISS, over every descriptor; or, for the factory "words", the word vectors of words.WordIndex over
the catalogue's vocabulary, which train_vocabulary() makes once before the tasks) and writes
targets.json last — the mark that the shard is complete. Entries that cannot be trained (too plain,
unreadable) are listed in targets.json with why, and the task goes on.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from typing import List, Optional

import numpy as np

from .catalogue import Catalogue, model_file, trained_entry, write_json
from .catalogue_index import CatalogueIndex
from .words import Vocabulary, WordIndex, word_entry

# The command that runs one shard task: this package's launcher (service/nft-recognition).
LAUNCHER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "nft-recognition")


def train_shard(catalogue: Catalogue, shard: int, progress=None) -> dict:
    """Trains shard `shard` (0 ≤ shard < catalogue.shards) and writes its folder; returns its
    report (what targets.json holds: targets, skipped entries, descriptors, seconds).

    progress: None or a callable(done, total, name) called after each entry.
    Raises ValueError for a shard out of range; FileNotFoundError for a "words" catalogue without
    its vocabulary yet; OSError when the folder cannot be written."""
    import nft  # the project's module: the trainer (here, not at import, so the service's front needs no GL)

    if not 0 <= shard < catalogue.shards:
        raise ValueError(f"shard: expected 0 <= shard < {catalogue.shards}, got {shard}")
    start = time.monotonic()
    folder = catalogue.shard_folder(shard)
    os.makedirs(os.path.join(folder, "models"), exist_ok=True)
    entries = catalogue.entries_of(shard)
    if catalogue.uses_words and not os.path.exists(catalogue.vocabulary_path):
        raise FileNotFoundError(f"{catalogue.vocabulary_path}: no vocabulary yet; `nft-recognition build` trains it "
                                "before the shards")
    vocabulary = Vocabulary.load(catalogue.vocabulary_path) if catalogue.uses_words else None
    trained, skipped, descriptors = [], [], []
    for done, (target_id, entry) in enumerate(entries.items(), 1):
        try:
            t = nft.train_target(entry.image, width_m=entry.width_m)
        except (nft.InputError, FileNotFoundError) as e:
            skipped.append({"id": target_id, "name": entry.name, "image": entry.image, "error": str(e)})
        else:
            t.save(os.path.join(folder, model_file(target_id)))
            trained.append(trained_entry(target_id, entry.name, t))
            descriptors.append((target_id, word_entry(vocabulary, t) if vocabulary else t.descriptors))
        if progress:
            progress(done, len(entries), entry.name)
    if vocabulary:
        words = WordIndex(vocabulary.size)
        words.add_targets([i for i, _ in descriptors], [v for _, (v, _) in descriptors],
                          [layout for _, (_, layout) in descriptors])
        words.save(os.path.join(folder, "words.npz"))
        count = sum(t["keypoints"] for t in trained)
    else:
        count = _descriptor_index(catalogue, descriptors, folder)
    report = {"shard": shard, "targets": trained, "skipped": skipped, "descriptors": count,
              "seconds": round(time.monotonic() - start, 3)}
    write_json(os.path.join(folder, "targets.json"), report)  # last: the shard is complete
    return report


def _descriptor_index(catalogue: Catalogue, descriptors, folder: str) -> int:
    """Writes the shard's FAISS index over every descriptor of its targets; returns their count."""
    index = CatalogueIndex(dim=descriptors[0][1].shape[1] if descriptors else 64, factory=catalogue.factory)
    if not index.is_trained and descriptors:
        index.train(np.vstack([d for _, d in descriptors]))
    for target_id, d in descriptors:
        index.add_target(target_id, d)
    index.save(os.path.join(folder, "index.faiss"))
    return index.descriptor_count


def train_vocabulary(catalogue: Catalogue, sample: int = 300, coarse: int = 256, fine: int = 256,
                     progress=None) -> Vocabulary:
    """Trains a "words" catalogue's vocabulary (words.Vocabulary.train) on the descriptors of
    `sample` of its entries, spread evenly over the list, trained as the shards will train them,
    and writes it to DIR/vocabulary.npz; the shard tasks then need nothing from each other.

    progress: None or a callable(done, total, name) called after each sampled entry.
    Raises ValueError when the catalogue is not a "words" one or no sampled entry can be trained."""
    import nft

    if not catalogue.uses_words:
        raise ValueError(f"{catalogue.folder}: factory '{catalogue.factory}' needs no vocabulary (only \"words\" does)")
    chosen = np.unique(np.linspace(0, len(catalogue.entries) - 1, min(sample, len(catalogue.entries))).astype(int))
    descriptors = []
    for done, i in enumerate(chosen, 1):
        entry = catalogue.entries[i]
        try:
            descriptors.append(nft.train_target(entry.image, width_m=entry.width_m).descriptors)
        except (nft.InputError, FileNotFoundError):
            pass  # the shard task reports it
        if progress:
            progress(done, len(chosen), entry.name)
    if not descriptors:
        raise ValueError(f"{catalogue.folder}: none of the {len(chosen)} sampled entries could be trained")
    vocabulary = Vocabulary.train(descriptors, coarse=min(coarse, sum(len(d) for d in descriptors)), fine=fine)
    vocabulary.save(catalogue.vocabulary_path)
    return vocabulary


def build_local(catalogue: Catalogue, jobs: int = 1) -> List[int]:
    """Trains the shards not finished yet on this machine, `jobs` shard tasks at a time, each a
    process of the launcher (`nft-recognition train-shard`) as a Slurm array task would be;
    returns the shards that failed (their task's output is passed through)."""
    todo = catalogue.missing_shards()
    running, failed = [], []
    while todo or running:
        while todo and len(running) < max(jobs, 1):
            s = todo.pop(0)
            running.append((s, subprocess.Popen([sys.executable, LAUNCHER, "train-shard", catalogue.folder, str(s)])))
        for item in list(running):
            if item[1].poll() is not None:
                running.remove(item)
                if item[1].returncode != 0:
                    failed.append(item[0])
        time.sleep(0.05)
    return sorted(failed)


def slurm_script(catalogue: Catalogue, partition: Optional[str], time_limit: str, cpus: int,
                 shards: List[int]) -> str:
    """The sbatch script of the array: task SLURM_ARRAY_TASK_ID trains that shard; its log is
    DIR/slurm/shard-%a.log."""
    lines = ["#!/bin/bash", "#SBATCH --job-name=nft-catalogue",
             f"#SBATCH --array={','.join(str(s) for s in shards)}",
             f"#SBATCH --cpus-per-task={cpus}", f"#SBATCH --time={time_limit}",
             f"#SBATCH --output={os.path.join(catalogue.folder, 'slurm', 'shard-%a.log')}"]
    if partition:
        lines.append(f"#SBATCH --partition={partition}")
    # The task finds the nft module and this package as the submitting shell did.
    path = os.environ.get("PYTHONPATH", "")
    lines.append("set -euo pipefail")
    if path:
        lines.append(f"export PYTHONPATH={shlex.quote(path)}")
    lines += [f"exec {shlex.quote(sys.executable)} {shlex.quote(LAUNCHER)} train-shard "
              f"{shlex.quote(catalogue.folder)} \"$SLURM_ARRAY_TASK_ID\""]
    return "\n".join(lines) + "\n"


def submit_slurm(catalogue: Catalogue, partition: Optional[str] = None, time_limit: str = "01:00:00",
                 cpus: int = 1) -> Optional[str]:
    """Submits the shards not finished yet as one Slurm job array (sbatch --parsable) and returns
    its job id; None when every shard is finished. The script is DIR/slurm/train.sbatch.

    Raises RuntimeError with sbatch's message when the submission fails, FileNotFoundError when
    sbatch is not installed (Debian's slurm-client; scripts/install-deps.sh slurm)."""
    shards = catalogue.missing_shards()
    if not shards:
        return None
    os.makedirs(os.path.join(catalogue.folder, "slurm"), exist_ok=True)
    script = os.path.join(catalogue.folder, "slurm", "train.sbatch")
    with open(script, "w", encoding="utf-8") as f:
        f.write(slurm_script(catalogue, partition, time_limit, cpus, shards))
    try:
        out = subprocess.run(["sbatch", "--parsable", script], capture_output=True, text=True, check=False)
    except FileNotFoundError as e:
        raise FileNotFoundError("sbatch not found: install Slurm's client (scripts/install-deps.sh slurm)") from e
    if out.returncode != 0:
        raise RuntimeError(f"sbatch {script} failed ({out.returncode}): {out.stderr.strip()}")
    return out.stdout.strip().split(";")[0]

