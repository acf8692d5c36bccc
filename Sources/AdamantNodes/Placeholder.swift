// Replaced by the node-access work.
