#!/usr/bin/python3
"""A pod manifest of deploy/kubernetes as the kubelet hands it to the CRI:
for tests/clients/cri.sh, which runs the manifests we ship instead of a
copy of them.

usage: pod_manifest.py MANIFEST KIND BASE_POD.json BASE_CTR.json IMAGE OUT_POD.json OUT_CTR.json

MANIFEST is a YAML file of one or more documents; the first of KIND is
taken: a Pod (its metadata and spec), or an Agent Sandbox Sandbox or
SandboxTemplate (spec.podTemplate). BASE_POD.json and BASE_CTR.json are
the test's PodSandboxConfig and ContainerConfig (names, log paths, cgroup
parent, namespaces: what the kubelet derives from the node); the pod's
labels and annotations, and its first container's command, args,
workingDir, security context and resources are laid over them as the
kubelet maps them (pod-level runAsUser/runAsGroup/seccompProfile apply to
a container that sets none; allowPrivilegeEscalation: false is
no_new_privs; cpu limits are a CFS quota over a 100 ms period). IMAGE
replaces the manifest's image (the test has no registry).
"""

import json
import sys

import yaml

CPU_PERIOD = 100000
UNITS = {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "k": 10**3, "M": 10**6, "G": 10**9}


def pod_template(manifest, kind):
    with open(manifest) as f:
        for doc in yaml.safe_load_all(f):
            if doc and doc.get("kind") == kind:
                return doc["spec"]["podTemplate"] if kind != "Pod" else doc
    sys.exit(f"pod_manifest.py: no {kind} in {manifest}")


def millicores(quantity):
    text = str(quantity)
    return int(text[:-1]) if text.endswith("m") else int(float(text) * 1000)


def byte_count(quantity):
    text = str(quantity)
    for suffix, factor in UNITS.items():
        if text.endswith(suffix):
            return int(float(text[:-len(suffix)]) * factor)
    return int(text)


def security_context(pod_context, container_context):
    merged = dict(pod_context or {})
    merged.update(container_context or {})
    out = {}
    for key, field in (("runAsUser", "runAsUser"), ("runAsGroup", "runAsGroup")):
        if key in merged:
            out[field] = {"value": str(merged[key])}
    if merged.get("allowPrivilegeEscalation") is False:
        out["noNewPrivs"] = True
    if merged.get("readOnlyRootFilesystem"):
        out["readonlyRootfs"] = True
    caps = merged.get("capabilities") or {}
    if caps:
        out["capabilities"] = {"addCapabilities": caps.get("add", []),
                               "dropCapabilities": caps.get("drop", [])}
    profile = (merged.get("seccompProfile") or {}).get("type")
    if profile:
        out["seccomp"] = {"profileType": profile}
    return out


def resources(spec):
    limits = (spec or {}).get("limits", {})
    requests = (spec or {}).get("requests", {})
    out = {}
    if "cpu" in limits:
        out["cpuPeriod"] = str(CPU_PERIOD)
        out["cpuQuota"] = str(millicores(limits["cpu"]) * CPU_PERIOD // 1000)
    if "cpu" in requests:
        out["cpuShares"] = str(max(2, millicores(requests["cpu"]) * 1024 // 1000))
    if "memory" in limits:
        out["memoryLimitInBytes"] = str(byte_count(limits["memory"]))
    return out


def main(argv):
    if len(argv) != 8:
        sys.exit(__doc__)
    manifest, kind, base_pod, base_ctr, image, out_pod, out_ctr = argv[1:]
    template = pod_template(manifest, kind)
    meta, spec = template.get("metadata", {}), template["spec"]
    with open(base_pod) as f:
        pod = json.load(f)
    with open(base_ctr) as f:
        ctr = json.load(f)
    pod["labels"] = {**pod.get("labels", {}), **meta.get("labels", {})}
    pod["annotations"] = {**pod.get("annotations", {}), **meta.get("annotations", {})}
    pod_context = spec.get("securityContext", {})
    sandbox_context = pod["linux"].setdefault("securityContext", {})
    sandbox_context.update({k: v for k, v in security_context(pod_context, None).items()
                            if k in ("runAsUser", "runAsGroup", "seccomp")})

    container = spec["containers"][0]
    ctr["image"] = {"image": image}
    ctr["command"] = container.get("command", [])
    ctr["args"] = container.get("args", [])
    if "workingDir" in container:
        ctr["workingDir"] = container["workingDir"]
    linux = ctr.setdefault("linux", {})
    linux.setdefault("securityContext", {}).update(
        security_context(pod_context, container.get("securityContext")))
    linux["resources"] = resources(container.get("resources"))
    for path, value in ((out_pod, pod), (out_ctr, ctr)):
        with open(path, "w") as f:
            json.dump(value, f, indent=1)


if __name__ == "__main__":
    main(sys.argv)
