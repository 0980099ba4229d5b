#!/usr/bin/env python3
"""kubeplay.py — turn rendered manifests (kustomize build) into what `podman kube play` runs.

Usage: kubeplay.py --keep NAME,... --tokens DIR < rendered.yaml > play.yaml

Podman 4.3's kube play runs Pods, Deployments and PersistentVolumeClaims; it ignores
StatefulSets, Services and NetworkPolicies, and crashes on a Secret volume. So, for the named
workloads only:
  - a StatefulSet becomes the Pod a cluster would make of it (NAME-0, the same pod template),
    its volumeClaimTemplates the PersistentVolumeClaims it would claim (data-NAME-0);
  - a Deployment and a PersistentVolumeClaim pass unchanged;
  - a Secret volume NAME becomes the host folder DIR/NAME (the same file, owned by the user);
  - each container port is also published on the host (hostPort), as a Service would reach it.
Everything else (the Namespace, Services, NetworkPolicies, other workloads) is left out, and
named on standard error, so the output holds exactly what kube play will run.
"""
import argparse
import os
import sys

import yaml


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keep", required=True)
    ap.add_argument("--tokens", required=True)
    args = ap.parse_args()
    keep = set(args.keep.split(","))
    out, claims, seen = [], set(), set()
    for doc in yaml.safe_load_all(sys.stdin):
        if not doc:
            continue
        kind, name = doc["kind"], doc["metadata"]["name"]
        if kind in ("Deployment", "StatefulSet") and name in keep:
            seen.add(name)
            spec = doc["spec"]["template"]["spec"]
            for c in spec["containers"]:
                for p in c.get("ports", []):
                    p["hostPort"] = p["containerPort"]
            for v in spec.get("volumes", []):
                if "secret" in v:
                    path = os.path.join(args.tokens, v["secret"]["secretName"])
                    v.pop("secret")
                    v["hostPath"] = {"path": path, "type": "Directory"}
                claims.add(v.get("persistentVolumeClaim", {}).get("claimName"))
            if kind == "StatefulSet":
                pod_name = name + "-0"
                for t in doc["spec"].get("volumeClaimTemplates", []):
                    claim = t["metadata"]["name"] + "-" + pod_name
                    out.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                                "metadata": {"name": claim}, "spec": t["spec"]})
                    spec.setdefault("volumes", []).append(
                        {"name": t["metadata"]["name"], "persistentVolumeClaim": {"claimName": claim}})
                meta = doc["spec"]["template"]["metadata"]
                spec["restartPolicy"] = "Always"
                doc = {"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": pod_name, "labels": meta.get("labels", {})}, "spec": spec}
            out.append(doc)
        elif kind == "PersistentVolumeClaim":
            out.append(doc)
        else:
            print(f"kubeplay: left out {kind} {name}", file=sys.stderr)
    missing = keep - seen
    if missing:
        sys.exit(f"kubeplay: no workload named {', '.join(sorted(missing))}")
    # Only the claims the kept workloads use.
    out = [d for d in out if d["kind"] != "PersistentVolumeClaim" or d["metadata"]["name"] in claims
           or d["metadata"]["name"].startswith("data-")]
    yaml.safe_dump_all(out, sys.stdout, sort_keys=False)


if __name__ == "__main__":
    main()
