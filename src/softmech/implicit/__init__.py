"""Implicit integration of discrete elastic rods and shells (DisMech's model, ref. 004):
one global DOF vector (layout), bodies and terms that give forces and Jacobians (binding, body),
implicit Euler with Newton, line search and step halving (newton), and the run loop
(simulation)."""
