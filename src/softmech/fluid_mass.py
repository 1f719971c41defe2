"""What a fluid at rest does to the integrator's masses and body acceleration (Renda et al., IJRR
2018, eqs. 10, 13, 19-21; the terms: softmech.terms.fluids): one function shared by the packing of
every body kind (softmech.packing, softmech.der_packing)."""
import numpy as np


def in_fluid(mass, body_acc, added, displaced):
    """(m + m_a, g (m - m_f) / (m + m_a)): the mass the kick divides by and the body acceleration
    (gravity and buoyancy, Renda et al. 2018 eq. 10) of bodies with added mass m_a and displaced
    fluid mass m_f [kg] (mass, added, displaced (B, n); body_acc (B, n, 3)); unchanged arrays
    when both are zero (scenes without fluid stay bit-identical)."""
    if not (np.any(added) or np.any(displaced)):
        return mass, body_acc
    total = mass + added
    return total, body_acc * ((mass - displaced) / total)[..., None]
