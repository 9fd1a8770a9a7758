"""vigil's side-by-side benchmark driver (bench/run). Standard library only."""
