"""Workload 7 (--clients): placeholder until the client workload lands."""

NAME = "clients"


def run(ctx):
    ctx.problem(NAME, "all", "not implemented yet")
