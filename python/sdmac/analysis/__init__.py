"""Analysis helpers: analytical models and statistics of sdmac's results."""
