"""Built-in scenes as Scenarios: the builder of softmech.scenarios with its run settings and
template, ready to be run or written to an editable file (`softmech new`)."""
from softmech.scenefile.schema import RunSettings, Scenario
from softmech.scenefile.writer import dumps


def builtin_scenario(name, **build_kwargs):
    """Scenario of built-in scene `name` (softmech.scenarios.SCENES); build_kwargs go to its
    builder (n_elems=..., duration=...)."""
    from softmech.scenarios import SCENES, TEMPLATES, check_scene

    check_scene(name, files=False)
    entry = SCENES[name]
    scene, info = entry.build(**build_kwargs)
    template = name if name in TEMPLATES else "generic"
    campaign = TEMPLATES[template].campaign_module()  # its campaign, ready to edit and run
    optimize = dict(campaign.CAMPAIGN_DEFAULTS) if campaign else None
    return Scenario(scene=scene, run=RunSettings(dt=info.dt, duration=info.duration,
                                                 worlds=info.worlds,
                                                 scheme=getattr(info, "scheme", None)),
                    name=name, description=entry.description, template=template,
                    report=TEMPLATES[template].report_of(info), optimize=optimize)


def scenario_text(name, **build_kwargs):
    """TOML text of built-in scene `name` (every array inline)."""
    return dumps(builtin_scenario(name, **build_kwargs))
