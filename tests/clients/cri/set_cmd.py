#!/usr/bin/env python3
"""Gives an image tar written by make_image.py another name and command.

usage: set_cmd.py IN.tar OUT.tar NAME CMD...

cri.sh turns make_image.py's busybox image into the pod sandbox ("pause")
image this way: there is no registry to pull registry.k8s.io/pause from, and
the sandbox's one process only has to stay alive (`sleep infinity`) until
containerd kills it. The config blob gets the new Cmd; the config, manifest,
index.json and manifest.json (docker-archive) are rewritten with the new
digests; the layer is copied as it is. Entries keep make_image.py's order,
mtime 0 and owner 0:0.
"""

import hashlib
import io
import json
import os
import sys
import tarfile


def dump(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def sha256(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def blob(digest):
    return "blobs/sha256/" + digest.split(":", 1)[1]


def main(argv):
    if len(argv) < 5:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    in_path, out_path, name, cmd = argv[1], argv[2], argv[3], argv[4:]
    with tarfile.open(in_path) as tar:
        members = tar.getmembers()
        files = {m.name: tar.extractfile(m).read() for m in members if m.isfile()}

    index = json.loads(files["index.json"])
    old_manifest_digest = index["manifests"][0]["digest"]
    manifest = json.loads(files[blob(old_manifest_digest)])
    old_config_digest = manifest["config"]["digest"]
    config = json.loads(files[blob(old_config_digest)])

    config["config"]["Cmd"] = cmd
    config_bytes = dump(config)
    config_digest = sha256(config_bytes)
    manifest["config"].update(digest=config_digest, size=len(config_bytes))
    manifest_bytes = dump(manifest)
    manifest_digest = sha256(manifest_bytes)
    descriptor = index["manifests"][0]
    descriptor.update(digest=manifest_digest, size=len(manifest_bytes))
    descriptor["annotations"] = {
        "io.containerd.image.name": name,
        "org.opencontainers.image.ref.name": name,
    }
    docker = json.loads(files["manifest.json"])
    docker[0].update(Config=blob(config_digest), RepoTags=[name])

    renamed = {
        blob(old_config_digest): (blob(config_digest), config_bytes),
        blob(old_manifest_digest): (blob(manifest_digest), manifest_bytes),
        "index.json": ("index.json", dump(index)),
        "manifest.json": ("manifest.json", dump(docker)),
    }
    tmp_path = out_path + ".tmp"
    with tarfile.open(tmp_path, mode="w", format=tarfile.USTAR_FORMAT) as out:
        for member in members:
            if not member.isfile():
                out.addfile(member)
                continue
            path, data = renamed.get(member.name, (member.name, files[member.name]))
            member.name, member.size = path, len(data)
            out.addfile(member, io.BytesIO(data))
    os.replace(tmp_path, out_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
