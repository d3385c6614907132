"""Certified composition engines (each on tradeoff/'s grid and FFT)."""
