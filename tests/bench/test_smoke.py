"""The benchmark scripts run end to end at tiny sizes (no timing asserts: speed is printed, not tested)."""
import numpy as np

from bench import bench_backward_chain, bench_mlp


def test_bench_mlp_three_versions_agree_at_a_tiny_size():
    setup = bench_mlp.Setup(samples=8, steps=4)
    runs = bench_mlp.compare(setup, repeats=1, scalar_repeats=1, include_torch=False)
    assert [r.name for r in runs] == ["lucid", "floor", "numpy", "scalar", "micro"]
    assert bench_mlp.check_agreement(runs) <= 1e-9
    assert all(r.seconds > 0 for r in runs)
    text = bench_mlp.report(runs, setup)
    assert "lucid/numpy" in text and "floor/numpy" in text and "lucid/floor" in text
    assert "(target ≤ 1.15)" in text
    assert "scalar/numpy" in text and "scalar/micro" in text and "torch: not installed" in text


def test_the_micrograd_style_yardstick_trains_the_same_scalar_network_as_lucid():
    from bench import micro_scalar
    from lucid.nn.scalar import ScalarMLP
    from lucid.nn.training import train_scalar

    x, y = bench_mlp.toy_binary_data(12, 5, seed=2)
    weights = bench_mlp.MLP([5, 3, 1], activation="tanh", output_activation="sigmoid", seed=2).weights()
    micro_losses = micro_scalar.train(weights, x, y, 10, 0.5)
    np.testing.assert_allclose(micro_losses, train_scalar(ScalarMLP(weights), x, y, 10, 0.5), rtol=1e-13)
    assert micro_losses[-1] < micro_losses[0]


def test_the_engine_floor_trains_the_same_network_step_by_step_as_lucid():
    """The measuring stick does the same arithmetic as lucid (only its bookkeeping is lighter)."""
    from bench import engine_floor

    x, y = bench_mlp.toy_binary_data(16, 5, seed=1)
    model = bench_mlp.MLP([5, 2, 1], activation="tanh", output_activation="sigmoid", seed=1)
    floor_losses = engine_floor.train(model.weights(), x, y, 25, 0.5)
    lucid_losses = bench_mlp.train_lucid(model, x, y, 25, 0.5)
    np.testing.assert_allclose(floor_losses, lucid_losses, rtol=1e-13)
    assert floor_losses[-1] < floor_losses[0]


def test_bench_mlp_lean_numpy_loop_matches_the_lucid_loop_step_by_step():
    """The yardstick differentiates sigmoid + BCE on paper; every step's loss must still be lucid's."""
    setup = bench_mlp.Setup(samples=16, steps=25)
    x, y = bench_mlp.toy_binary_data(setup.samples, 5, seed=0)
    model = bench_mlp.MLP([5, 2, 1], activation="tanh", output_activation="sigmoid", seed=0)
    weights = model.weights()
    before = [w.copy() for pair in weights for w in pair]
    lucid_losses = bench_mlp.train_lucid(model, x, y, setup.steps, setup.lr)
    numpy_losses = bench_mlp.train_numpy_lean(weights, x, y, setup.steps, setup.lr)
    np.testing.assert_allclose(numpy_losses, lucid_losses, rtol=1e-12)
    assert numpy_losses[-1] < numpy_losses[0]
    for kept, now in zip(before, [w for pair in weights for w in pair]):
        np.testing.assert_array_equal(kept, now)  # the yardstick trains copies, not the caller's arrays


def test_bench_mlp_flags_disagreeing_losses():
    runs = [bench_mlp.Run("lucid", 0.5, 1.0), bench_mlp.Run("numpy", 0.5 + 1e-6, 1.0)]
    try:
        bench_mlp.check_agreement(runs)
    except AssertionError as err:
        assert "disagree" in str(err)
    else:  # pragma: no cover - the check must fire
        raise AssertionError("check_agreement accepted losses 1e-6 apart")


def test_bench_backward_chain_builds_a_chain_with_the_right_gradient():
    x, y = bench_backward_chain.build_chain(5)
    y.backward()
    values = [0.5]
    for _ in range(5):
        values.append(np.sin(values[-1]))
    assert x.grad == np.prod(np.cos(values[:-1]))
    build, backward = bench_backward_chain.time_chain(20, repeats=1)
    assert build > 0 and backward > 0


def test_bench_load_two_students_get_the_graph_and_the_table_reports_them():
    import shutil

    import pytest

    from bench import bench_load

    if shutil.which("dot") is None:
        pytest.skip("needs Graphviz's dot")
    row = bench_load.run_n(2, timeout=120)
    assert [s.error for s in row.students] == [None, None]
    assert all(s.time_to_graph is not None and s.time_to_graph > 0 for s in row.students)
    assert all(s.time_to_run is not None for s in row.students)  # the typed program drew its graph too
    assert row.cpu_seconds > 0 and row.rss_mb > 50
    text = bench_load.table([row])
    assert "graph p95" in text and "\n   2 " in text


def test_bench_large_graph_cluster_case_is_the_issue_program_and_puts_its_clusters_back():
    from bench import bench_large_graph

    source = bench_large_graph.cluster_program()
    assert 2600 < len(source) < 2800 and source.count("\n") == 60 + 60 + 2
    from lucid.autograd import backward_trace
    from lucid.expr import run
    from lucid.viz import to_dot

    program = run(source)
    now = to_dot(program.output, backward_trace(program.output), 5).source
    assert "subgraph cluster" not in now
    before, clusters = bench_large_graph.with_prefix_clusters(now)
    assert clusters == 20 and before.count("subgraph cluster_") == 20


def test_bench_load_runs_its_class_even_inside_a_running_event_loop():
    """Playwright's sync API keeps a loop running while the e2e tests' browser is open."""
    import asyncio
    import concurrent.futures

    from bench.streamlit_client import run_sync

    async def inside_a_loop() -> int:
        return run_sync(asyncio.sleep(0.01, result=7))

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:  # this thread may run a loop already
        assert pool.submit(asyncio.run, inside_a_loop()).result() == 7


def test_bench_mlp_fastest_steps_times_lucid_and_the_floor_on_the_same_training():
    lucid_step, floor_step = bench_mlp.fastest_steps(bench_mlp.Setup(samples=8, steps=3), runs=2)
    assert 0 < lucid_step < 1 and 0 < floor_step < 1
