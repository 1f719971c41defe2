"""Physical terms (loads, dissipation, boundary conditions); each compiles into the engine arrays."""
