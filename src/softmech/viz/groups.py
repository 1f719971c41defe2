"""Groups of bodies, so that pictures of scenes with many bodies stay readable: the legends of
com.png (softmech.viz.plots), the colours of the 3D views (softmech.viz.source.bodies_at) and
the body list of `softmech view` (softmech.viz.viewer) all use the one rule here.

A body's group is read from its name alone (a results file holds nothing else about it):

1. its role, when one of its words (split at "_", trailing digits ignored) names one in ROLES:
   "long_fiber_3" -> "muscle fibres", "f3_rachis" -> "feather shafts", "humerus" -> "bones";
2. otherwise its stem, the name without trailing indices ("rope3" -> "rope*",
   "arm_2" -> "arm*"), a body without an index its own group ("root", "mantle").

    body_groups(["humerus", "radius", "long_fiber_0", "long_fiber_1", "root"])
    # {"bones": ["humerus", "radius"], "muscle fibres": [...], "root": ["root"]}

At most `most` groups are kept (MOST_GROUPS by default, what a legend can show beside the
data): the largest, in the order of their first body; the rest become one "other bodies".
A group is labelled with its number of bodies: "muscle fibres (36)" (group_label).
"""
import functools
import re

MOST_GROUPS = 8
"""Largest number of groups (legend entries) a picture shows."""

ROLES = (("muscle fibres", r"fib(?:er|re)s?"),
         ("muscles", r"muscles?|biceps|triceps|scapulotriceps|pectoralis|supracoracoideus"),
         ("tendons", r"tendons?"),
         ("tendon plates", r"plates?"),
         ("bones", r"bones?|humerus|radius|ulna|forearm|hand|thorax|femur|tibia"),
         ("feather shafts", r"rachis"),
         ("barbs", r"barbs?|f\d+_[oi]"),
         ("ropes", r"ropes?"),
         ("arms", r"arms?"))
"""(group, pattern) of the roles recognised in body names, first match first: the pattern is
matched against whole words of the name (between "_", start and end; trailing digits of the
word ignored). They name the bodies of the built-in scenes (the elbow's fibres, tendons,
plates and bones; the wing's muscles, bones, feather shafts f<k>_rachis and barbs
f<k>_o<j>, f<k>_i<j>; the parachute's ropes; the underwater robots' arms)."""

OTHER = "other bodies"
"""The group of the bodies beyond the `most` largest groups."""

_INDEX = re.compile(r"(?:[_\-. ]?\d+|\[\d+\])+$")
_ROLES = tuple((group, re.compile(rf"(?:^|_)(?:{pattern})\d*(?:_|$)")) for group, pattern in ROLES)


def stem(name):
    """The name without its trailing indices: "long_fiber_3" -> "long_fiber", "rope2" ->
    "rope", "canopy[4]" -> "canopy"; a name that is only an index is kept."""
    name = str(name)
    return _INDEX.sub("", name) or name


def group_of(name):
    """The group of one body: its role (ROLES) or, failing that, its stem followed by "*" when
    the name has an index ("rope*"), else the name itself."""
    for group, pattern in _ROLES:
        if pattern.search(str(name)):
            return group
    s = stem(name)
    return s if s == str(name) else f"{s}*"


def body_groups(names, most=MOST_GROUPS):
    """{group: [names]} of the bodies `names` (group_of), in the order of each group's first
    body; with more than `most` groups, the `most` - 1 largest are kept and the others joined
    into OTHER (last)."""
    if int(most) < 1:
        raise ValueError(f"most = {most!r} is not allowed: must be an integer >= 1")
    groups = {}
    for name in names:
        groups.setdefault(group_of(name), []).append(name)
    if len(groups) <= most:
        return groups
    largest = sorted(groups, key=lambda g: -len(groups[g]))[:int(most) - 1]   # stable sort
    kept = {g: v for g, v in groups.items() if g in largest}
    kept[OTHER] = [n for g, v in groups.items() if g not in largest for n in v]
    return kept


def group_label(group, members):
    """What a legend shows for a group: the body's name for a group of one ("humerus"), else
    the group and its number of bodies ("muscle fibres (36)")."""
    return str(members[0]) if len(members) == 1 else f"{group} ({len(members)})"


ROLE_COLORS = {"bones": (0.88, 0.84, 0.74), "muscle fibres": (0.78, 0.22, 0.24),
               "muscles": (0.78, 0.22, 0.24), "tendons": (0.80, 0.80, 0.84)}
"""Colours (RGB in [0, 1]) of the roles with a natural one (bone, muscle red, tendon white);
other groups take the palette (softmech.viz.geometry.rod_color) in their order."""


def group_colors(names, most=MOST_GROUPS):
    """{name: colour (RGB in [0, 1])} of the bodies `names`: one colour per group
    (body_groups), ROLE_COLORS for those roles, else rod_color(index of the group)."""
    return dict(_group_colors(tuple(names), most))


@functools.lru_cache(maxsize=16)
def _group_colors(names, most):
    """group_colors of a tuple of names, kept: every frame of a video asks for the same."""
    from softmech.viz.geometry import rod_color

    return {name: ROLE_COLORS.get(group, rod_color(k))
            for k, (group, members) in enumerate(body_groups(names, most).items())
            for name in members}
