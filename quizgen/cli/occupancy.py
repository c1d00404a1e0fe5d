"""`quizgen occupancy`: the occupancy calculator that explains itself."""
