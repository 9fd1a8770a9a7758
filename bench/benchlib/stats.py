"""Median, min, max and ratios over the samples of one metric."""

import statistics


def summary(values):
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "n": len(values)}


def median(metric, runtime):
    values = metric["values"].get(runtime)
    return statistics.median(values) if values else None


def ratio(metric, runtime, base="runc"):
    """runtime's median / base's median, oriented so > 1 is always worse
    (for throughputs the inverse), or None."""
    a, b = median(metric, runtime), median(metric, base)
    if a is None or b is None or a <= 0 or b <= 0:
        return None
    return b / a if metric["better"] == "higher" else a / b


def spread(values):
    """(max - min) / median: how noisy a metric was."""
    s = summary(values)
    if not s or s["median"] == 0:
        return None
    return (s["max"] - s["min"]) / s["median"]
