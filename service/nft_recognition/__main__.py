"""python3 -m nft_recognition: the same as service/nft-recognition."""
import sys

from .cli import main

if __name__ == "__main__":  # not when Dask's spawned workers import it
    sys.exit(main())
