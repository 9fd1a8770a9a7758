"""One module per workload of the benchmarks issue; each exposes run(ctx)."""
