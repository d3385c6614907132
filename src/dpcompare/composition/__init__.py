"""Certified composition engines for batching schemes without independent per-step sampling:
random allocation (balls-in-bins batches) and the shuffle lower bound."""
