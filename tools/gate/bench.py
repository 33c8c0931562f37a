"""Base-vs-head benchmark of touched nn and elementwise kernels (placeholder)."""


def run(ctx, files, min_time):
    return None
