"""What the PyTorch timing scripts share (model_speed_torch.py, kwt_speed_torch.py): the median time per call."""

import statistics
import time


def median_seconds(f, repetitions=11, minimum=0.2):
    """The median over `repetitions` runs of the time per call of f(), each run calling it for at least `minimum`
    seconds."""
    times = []
    for _ in range(repetitions):
        calls, start = 0, time.perf_counter()
        while True:
            f()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= minimum:
                break
        times.append(elapsed / calls)
    return statistics.median(times)
