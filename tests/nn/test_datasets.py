"""The training page's datasets: right shapes, sane class balance, same data for the same seed."""
import zlib

import numpy as np
import pytest

from lucid.data import (
    DATASETS,
    FEATURE_NAMES,
    chunk_features,
    compresses_well,
    file_chunks,
    load,
    spirals,
    standardize,
    two_moons,
)
from lucid.data.file_chunks import library_files, python_library_dir


@pytest.mark.parametrize("builder", [two_moons, spirals])
def test_generated_sets_are_2d_balanced_and_labelled_0_or_1(builder):
    ds = builder(n=101, seed=3)
    assert ds.X.shape == (101, 2)
    assert ds.y.shape == (101,)
    assert set(np.unique(ds.y)) == {0.0, 1.0}
    assert ds.y.sum() == 51  # the odd point goes to class 1


@pytest.mark.parametrize("builder", [two_moons, spirals])
def test_generated_sets_repeat_for_a_seed_and_change_with_it(builder):
    a, b, c = builder(seed=1), builder(seed=1), builder(seed=2)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert not np.allclose(a.X, c.X)


def test_two_moons_without_noise_lies_on_the_two_unit_half_circles():
    ds = two_moons(n=50, noise=0.0, seed=0)
    top, bottom = ds.X[ds.y == 0], ds.X[ds.y == 1]
    np.testing.assert_allclose(np.hypot(top[:, 0], top[:, 1]), 1.0)
    np.testing.assert_allclose(np.hypot(bottom[:, 0] - 1.0, bottom[:, 1] - 0.5), 1.0)
    assert (top[:, 1] >= 0).all() and (bottom[:, 1] <= 0.5).all()


def test_spiral_arms_are_each_other_rotated_by_half_a_turn():
    ds = spirals(n=40, noise=0.0, seed=0)
    radius = np.hypot(ds.X[:, 0], ds.X[:, 1])
    assert radius.max() <= 1.0
    angle = np.arctan2(ds.X[:, 1], ds.X[:, 0])
    expected = radius * 1.5 * 2 * np.pi + np.where(ds.y == 1, np.pi, 0.0)
    np.testing.assert_allclose(np.cos(angle), np.cos(expected), atol=1e-9)


def test_load_knows_every_listed_dataset_and_refuses_others():
    assert DATASETS == ("two moons", "spirals", "file chunks")
    assert load("spirals").name == "spirals"
    with pytest.raises(ValueError, match="unknown dataset"):
        load("mnist")


def test_standardize_gives_zero_mean_unit_std_and_returns_the_map():
    X = np.array([[1.0, 5.0], [3.0, 5.0], [8.0, 5.0]])
    Z, mean, std = standardize(X)
    np.testing.assert_allclose(Z.mean(axis=0), [0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(Z[:, 0].std(), 1.0)
    np.testing.assert_allclose(mean, [4.0, 5.0])
    np.testing.assert_allclose(std, [np.std([1.0, 3.0, 8.0]), 1.0])  # a constant column keeps std 1
    np.testing.assert_allclose(Z[:, 1], 0.0)


# ----- the five chunk features --------------------------------------------------
def test_features_of_a_single_repeated_byte():
    f = dict(zip(FEATURE_NAMES, chunk_features(b"a" * 4096)))
    assert f["byte entropy"] == 0.0
    assert f["bigram entropy"] == 0.0
    assert f["ASCII share"] == 1.0
    assert f["unique-byte share"] == 1 / 256
    assert f["mean run length"] == 4096.0


def test_features_of_all_256_byte_values_in_order():
    chunk = bytes(range(256)) * 16
    f = dict(zip(FEATURE_NAMES, chunk_features(chunk)))
    assert f["byte entropy"] == pytest.approx(8.0)
    # 4095 pairs: 256 distinct (i, i+1 mod 256) pairs, 255 of them 16 times and (255, 0) 15 times
    counts = np.array([16] * 255 + [15], dtype=float)
    p = counts / counts.sum()
    assert f["bigram entropy"] == pytest.approx(float(-(p * np.log2(p)).sum()))
    assert f["ASCII share"] == 0.5
    assert f["unique-byte share"] == 1.0
    assert f["mean run length"] == 1.0


def test_mean_run_length_counts_runs_of_equal_bytes():
    # runs: aaa | b | cc | aaaa -> 4 runs over 10 bytes
    assert chunk_features(b"aaabccaaaa")[4] == 2.5


def test_the_label_is_zlib_below_30_percent():
    repetitive = b"abcd" * 1024
    noise = np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8).tobytes()
    assert len(zlib.compress(repetitive)) < 0.3 * 4096 and compresses_well(repetitive)
    assert len(zlib.compress(noise)) > 0.3 * 4096 and not compresses_well(noise)


# ----- the real dataset from Python's installation ------------------------------
def test_python_library_dir_holds_the_os_module():
    assert (python_library_dir() / "os.py").is_file()


def test_library_files_are_walked_in_sorted_order_and_bounded():
    root = python_library_dir()
    files = library_files(root, 4096, max_files=50)
    assert len(files) == 50
    assert files == library_files(root, 4096, max_files=50)
    assert all(f.stat().st_size >= 4096 for f in files)
    assert not any("__pycache__" in f.parts or "site-packages" in f.parts for f in files)


def test_file_chunks_has_five_features_and_both_labels_in_sane_proportion():
    ds = file_chunks(n_chunks=200, seed=0)
    assert ds.X.shape == (200, 5)
    assert ds.feature_names == FEATURE_NAMES
    assert 0.15 < ds.positive_share < 0.85
    assert np.all((ds.X[:, 0] >= 0) & (ds.X[:, 0] <= 8))
    assert np.all((ds.X[:, 2] >= 0) & (ds.X[:, 2] <= 1))
    assert len(ds.sources) == 200 and all("@" in s for s in ds.sources)


def test_file_chunks_rows_match_the_bytes_they_name():
    ds = file_chunks(n_chunks=20, seed=4)
    root = python_library_dir()
    for source, row, label in zip(ds.sources, ds.X, ds.y):
        rel, offset = source.rsplit("@", 1)
        with (root / rel).open("rb") as fh:
            fh.seek(int(offset))
            chunk = fh.read(4096)
        np.testing.assert_array_equal(row, chunk_features(chunk))
        assert label == float(compresses_well(chunk))


def test_file_chunks_is_deterministic_for_a_seed():
    a, b, c = file_chunks(n_chunks=60, seed=1), file_chunks(n_chunks=60, seed=1), file_chunks(n_chunks=60, seed=2)
    assert a.sources == b.sources
    np.testing.assert_array_equal(a.X, b.X)
    assert a.sources != c.sources


def test_file_chunks_reports_an_empty_root(tmp_path):
    with pytest.raises(FileNotFoundError, match="no files"):
        file_chunks(root=tmp_path)
