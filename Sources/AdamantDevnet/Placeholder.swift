// Replaced by the devnet work.
