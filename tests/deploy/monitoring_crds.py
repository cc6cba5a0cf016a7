"""The Prometheus Operator's PodMonitor and PrometheusRule (monitoring.coreos.com/v1), as the
JSON schemas of the fields deploy/kubernetes/monitoring uses: kubernetes-validate knows no
custom resource, so tests/deploy/test_kubernetes.py checks these two against them offline.

Written from the operator's CRDs (`openAPIV3Schema`, v0.82): the same names, types, patterns,
enums and required fields, for the subset we use, and strict as `kubectl apply
--validate=strict` is: a field not listed here is an error (a misspelt one, or one to add
here after checking the CRD)."""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

# the operator's pattern of a Prometheus duration (`30s`, `1h30m`)
DURATION = {
    "type": "string",
    "pattern": r"^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?"
    r"(([0-9]+)s)?(([0-9]+)ms)?)$",
}
LABEL_NAME = {"type": "string", "pattern": r"^[a-zA-Z_][a-zA-Z0-9_]*$"}
STRINGS = {"type": "object", "additionalProperties": {"type": "string"}}


def strict(properties: Schema, required: tuple[str, ...] = ()) -> Schema:
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }


METADATA = strict(
    {
        "name": {"type": "string", "pattern": r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},
        "namespace": {"type": "string"},
        "labels": STRINGS,
        "annotations": STRINGS,
    },
    ("name",),
)
LABEL_SELECTOR = strict(
    {
        "matchLabels": STRINGS,
        "matchExpressions": {
            "type": "array",
            "items": strict(
                {
                    "key": {"type": "string"},
                    "operator": {"enum": ["In", "NotIn", "Exists", "DoesNotExist"]},
                    "values": {"type": "array", "items": {"type": "string"}},
                },
                ("key", "operator"),
            ),
        },
    }
)
RELABEL_CONFIG = strict(
    {
        "action": {
            "enum": [
                *("replace", "keep", "drop", "hashmod", "labelmap", "labeldrop", "labelkeep"),
                *("Replace", "Keep", "Drop", "HashMod", "LabelMap", "LabelDrop", "LabelKeep"),
                *("lowercase", "uppercase", "keepequal", "dropequal"),
                *("Lowercase", "Uppercase", "KeepEqual", "DropEqual"),
            ]
        },
        "sourceLabels": {"type": "array", "items": LABEL_NAME},
        "separator": {"type": "string"},
        "targetLabel": {"type": "string"},
        "regex": {"type": "string"},
        "modulus": {"type": "integer"},
        "replacement": {"type": "string"},
    }
)

POD_MONITOR = strict(
    {
        "apiVersion": {"const": "monitoring.coreos.com/v1"},
        "kind": {"const": "PodMonitor"},
        "metadata": METADATA,
        "spec": strict(
            {
                "jobLabel": {"type": "string"},
                "podTargetLabels": {"type": "array", "items": {"type": "string"}},
                "selector": LABEL_SELECTOR,
                "namespaceSelector": strict(
                    {"any": {"type": "boolean"}, "matchNames": {"type": "array"}}
                ),
                "podMetricsEndpoints": {
                    "type": "array",
                    "items": strict(
                        {
                            "port": {"type": "string"},
                            "portNumber": {"type": "integer", "minimum": 1, "maximum": 65535},
                            "path": {"type": "string"},
                            "scheme": {"enum": ["http", "https", "HTTP", "HTTPS"]},
                            "interval": DURATION,
                            "scrapeTimeout": DURATION,
                            "honorLabels": {"type": "boolean"},
                            "relabelings": {"type": "array", "items": RELABEL_CONFIG},
                            "metricRelabelings": {"type": "array", "items": RELABEL_CONFIG},
                        }
                    ),
                },
                "sampleLimit": {"type": "integer", "minimum": 0},
            },
            ("selector",),
        ),
    },
    ("apiVersion", "kind", "metadata", "spec"),
)

RULE = {
    **strict(
        {
            "alert": {"type": "string"},
            "record": {"type": "string"},
            "expr": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "for": DURATION,
            "keep_firing_for": {**DURATION, "minLength": 1},
            "labels": STRINGS,
            "annotations": STRINGS,
        },
        ("expr",),
    ),
    # one of the two (the operator's admission webhook refuses both or neither)
    "oneOf": [{"required": ["alert"]}, {"required": ["record"]}],
}
PROMETHEUS_RULE = strict(
    {
        "apiVersion": {"const": "monitoring.coreos.com/v1"},
        "kind": {"const": "PrometheusRule"},
        "metadata": METADATA,
        "spec": strict(
            {
                "groups": {
                    "type": "array",
                    "items": strict(
                        {
                            "name": {"type": "string", "minLength": 1},
                            "interval": DURATION,
                            "limit": {"type": "integer"},
                            "query_offset": DURATION,
                            "labels": STRINGS,
                            "rules": {"type": "array", "items": RULE},
                        },
                        ("name",),
                    ),
                }
            }
        ),
    },
    ("apiVersion", "kind", "metadata", "spec"),
)

SCHEMAS = {"PodMonitor": POD_MONITOR, "PrometheusRule": PROMETHEUS_RULE}
