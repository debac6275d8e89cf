"""The L1/shared split of a point: the shared-memory configuration per SM the driver gives a kernel,
the L1 it leaves (the unified L1 + shared size per SM less that configuration), the carveout the
measured residency implies and whether the hint was overridden. The carveout figure draws these and
the report's points table can show them (split_cells).

The unified size is the file's device.published.unified_l1_smem_bytes; a file written before that
was recorded gets it from archs.json beside this module, a snapshot of `smembench --list --json`'s
archs (core/arch.c's table, checked against the program by tests/scripts/test_fig_carveout.py)."""
import json
import os

ARCHS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "archs.json")


def _snapshot():
    with open(ARCHS_FILE, encoding="utf-8") as f:
        return json.load(f)["unified_l1_smem_bytes"]


UNIFIED = _snapshot()


def unified_bytes(doc):
    """(bytes, where from) of the unified L1 + shared size per SM of the file's device: "recorded"
    (device.published), "core/arch.c (snapshot)" for an older file, or (None, why) for a compute
    capability the table does not know."""
    dev = doc.get("device") or {}
    v = ((dev.get("published") or {}).get("unified_l1_smem_bytes") or {}).get("value")
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return int(v), "recorded"
    cc = dev.get("cc")
    if cc in UNIFIED:
        return int(UNIFIED[cc]["value"]), "core/arch.c (snapshot)"
    return None, f"cc {cc} is not in core/arch.c's table: no unified L1 + shared size"


def _occ(r, key):
    v = (r.get("occupancy") or {}).get(key)
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def config_bytes(r):
    """(bytes, kind) of the shared-memory configuration per SM a point ran (or would run) under: the
    driver's pick where the file has it ("driver"), else the carveout hint's step ("hint": predict
    files, and cc where the driver's rule was not fitted); files before issue 12 recorded one,
    smem_config_bytes, the hint's step on a carveout sweep. (None, None) where none is known."""
    for key, kind in (("smem_config_predicted_bytes", "driver"), ("smem_config_requested_bytes", "hint"),
                      ("smem_config_bytes", "hint")):
        v = _occ(r, key)
        if v is not None:
            return int(v), kind
    return None, None


def hint_bytes(doc, r):
    """The shared memory per SM the requested carveout asks for: carveout_pct % of the device's
    largest configuration (device.smem_per_sm), in bytes; None without a carveout_pct."""
    p = (r.get("params") or {}).get("carveout_pct")
    per_sm = (doc.get("device") or {}).get("smem_per_sm")
    if not isinstance(p, (int, float)) or not isinstance(per_sm, (int, float)):
        return None
    return p / 100 * per_sm


def hint_overridden(r):
    """True where the driver did not follow a carveout hint: a hint was set (launch.carveout_requested),
    the point's residency is limited by shared memory (so it follows the configuration) and the
    measured residency differs from the API's. Files written before issue 52 set hint_overridden on
    any difference, a register-limited kernel without a hint among them (swizzle_ldmatrix's 6/6/5):
    the rule is applied here to them too, so that the mark means one thing in every output."""
    o = r.get("occupancy") or {}
    hint = (r.get("launch") or {}).get("carveout_requested")
    return bool(o.get("hint_overridden")) and isinstance(hint, (int, float)) and not isinstance(hint, bool) \
        and hint >= 0 and "shared_memory" in str(o.get("limiter") or "")


def split(doc, r):
    """The point's split, every size in KiB: smem_config_kib and its kind (config_bytes), l1_left_kib
    (None where the unified size or the configuration is unknown), hint_kib, effective_carveout_pct
    (the carveout the measured residency implies), hint_overridden (a hint set and not followed:
    hint_overridden()) and unified_kib."""
    unified, _ = unified_bytes(doc)
    config, kind = config_bytes(r)
    hint = hint_bytes(doc, r)
    return {
        "smem_config_kib": None if config is None else config / 1024,
        "smem_config_kind": kind,
        "l1_left_kib": None if config is None or unified is None else (unified - config) / 1024,
        "unified_kib": None if unified is None else unified / 1024,
        "hint_kib": None if hint is None else hint / 1024,
        "effective_carveout_pct": _occ(r, "effective_carveout"),
        "hint_overridden": hint_overridden(r),
    }


# the report's columns: (header with its unit, key of split())
COLUMNS = (("shared config (KiB/SM)", "smem_config_kib"), ("L1 left (KiB/SM)", "l1_left_kib"),
           ("effective carveout (%)", "effective_carveout_pct"), ("hint overridden", "hint_overridden"))


def split_cells(doc, r):
    """[(header, value)] for the report's points table, in COLUMNS' order; None where a point has no
    occupancy (a benchmark that records none) so that the cell reads as absent."""
    if not r.get("occupancy"):
        return [(h, None) for h, _ in COLUMNS]
    s = split(doc, r)
    return [(h, s[k]) for h, k in COLUMNS]
