"""Records that follow their code: where each record's statement is at another commit (unchanged, moved,
reworded, vanished), and the sites no record covers yet."""
