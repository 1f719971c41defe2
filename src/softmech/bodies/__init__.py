"""Body types: geometry, materials and their derived discrete quantities."""
