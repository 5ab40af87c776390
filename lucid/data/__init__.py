"""Datasets for the training page: two generated 2-D toys and one real dataset.

No Streamlit here: every builder is a pure function of its arguments (and, for
the file-chunks set, of the files of this machine's Python installation), so the
page can cache it and the tests can pin it.
"""
from lucid.data.dataset import Dataset, standardize
from lucid.data.file_chunks import FEATURE_NAMES, chunk_features, compresses_well, file_chunks, python_library_dir
from lucid.data.synthetic import spirals, two_moons
from lucid.i18n import N_

DATASETS = (N_("two moons"), N_("spirals"), N_("file chunks"))


def load(name: str, seed: int = 0) -> Dataset:
    """A dataset by its display name (one of ``DATASETS``) with default sizes."""
    if name == "two moons":
        return two_moons(seed=seed)
    if name == "spirals":
        return spirals(seed=seed)
    if name == "file chunks":
        return file_chunks(seed=seed)
    raise ValueError(f"unknown dataset {name!r}; choose one of {', '.join(DATASETS)}")


__all__ = ["DATASETS", "FEATURE_NAMES", "Dataset", "chunk_features", "compresses_well", "file_chunks", "load",
           "python_library_dir", "spirals", "standardize", "two_moons"]
