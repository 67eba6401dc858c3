"""Generative differential testing: draw scenarios, check a candidate, shrink and keep what fails."""
