#!/usr/bin/env python3
"""Builds a busybox image as one tar that is both an OCI image layout and a
docker-archive, with no registry and nothing but the standard library.

usage: make_image.py NAME OUT.tar [BUSYBOX]
  NAME     the image's reference, e.g. localhost/vigil-busybox:test
  OUT.tar  where to write the archive
  BUSYBOX  the static busybox to copy (default /bin/busybox)

The rootfs is bin/busybox plus a symlink to it for every applet of
`busybox --list`. It is a single uncompressed layer
(application/vnd.oci.image.layer.v1.tar), so the layer's digest is its diff_id.
The archive holds:
  oci-layout, index.json         OCI image layout; the manifest's descriptor is
                                 annotated with org.opencontainers.image.ref.name
                                 and io.containerd.image.name (what
                                 `ctr image import` names the image after)
  manifest.json                  docker-archive (`docker load`): Config,
                                 RepoTags and Layers name the same blobs
  blobs/sha256/<hex>             the layer, the config and the manifest
Every entry has mtime 0 and owner 0:0, and entries are in a fixed order, so the
same busybox and NAME give the same bytes.
"""

import hashlib
import io
import json
import os
import platform
import subprocess
import sys
import tarfile

ARCHES = {
    "x86_64": "amd64",
    "amd64": "amd64",
    "aarch64": "arm64",
    "arm64": "arm64",
    "armv7l": "arm",
    "i386": "386",
    "i686": "386",
    "ppc64le": "ppc64le",
    "s390x": "s390x",
    "riscv64": "riscv64",
}

PATH_ENV = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def entry(name, kind, mode, size=0, linkname=""):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = mode
    info.size = size
    info.linkname = linkname
    info.mtime = 0
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    return info


def dump(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def layer_tar(busybox):
    with open(busybox, "rb") as f:
        binary = f.read()
    listed = subprocess.run([busybox, "--list"], check=True, capture_output=True, text=True).stdout
    applets = sorted({a for a in listed.split() if a and a != "busybox" and "/" not in a})
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        tar.addfile(entry("bin", tarfile.DIRTYPE, 0o755))
        tar.addfile(entry("bin/busybox", tarfile.REGTYPE, 0o755, len(binary)), io.BytesIO(binary))
        for applet in applets:
            tar.addfile(entry("bin/" + applet, tarfile.SYMTYPE, 0o777, linkname="busybox"))
    return out.getvalue()


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    name, out_path = argv[1], argv[2]
    busybox = argv[3] if len(argv) == 4 else "/bin/busybox"
    arch = ARCHES.get(platform.machine(), platform.machine())

    layer = layer_tar(busybox)
    layer_digest = "sha256:" + hashlib.sha256(layer).hexdigest()
    config = dump({
        "architecture": arch,
        "os": "linux",
        "created": "1970-01-01T00:00:00Z",
        "config": {"Env": [PATH_ENV], "Cmd": ["sh"]},
        "rootfs": {"type": "layers", "diff_ids": [layer_digest]},
        "history": [{"created": "1970-01-01T00:00:00Z", "created_by": "make_image.py"}],
    })
    config_digest = "sha256:" + hashlib.sha256(config).hexdigest()
    manifest = dump({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {
            "mediaType": "application/vnd.oci.image.config.v1+json",
            "digest": config_digest,
            "size": len(config),
        },
        "layers": [{
            "mediaType": "application/vnd.oci.image.layer.v1.tar",
            "digest": layer_digest,
            "size": len(layer),
        }],
    })
    manifest_digest = "sha256:" + hashlib.sha256(manifest).hexdigest()
    index = dump({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [{
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "digest": manifest_digest,
            "size": len(manifest),
            "platform": {"architecture": arch, "os": "linux"},
            "annotations": {
                "io.containerd.image.name": name,
                "org.opencontainers.image.ref.name": name,
            },
        }],
    })

    def blob(digest):
        return "blobs/sha256/" + digest.split(":", 1)[1]

    docker_manifest = dump([{
        "Config": blob(config_digest),
        "RepoTags": [name],
        "Layers": [blob(layer_digest)],
    }])

    files = [
        ("oci-layout", dump({"imageLayoutVersion": "1.0.0"})),
        ("index.json", index),
        ("manifest.json", docker_manifest),
        (blob(layer_digest), layer),
        (blob(config_digest), config),
        (blob(manifest_digest), manifest),
    ]
    tmp_path = out_path + ".tmp"
    with tarfile.open(tmp_path, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        tar.addfile(entry("blobs", tarfile.DIRTYPE, 0o755))
        tar.addfile(entry("blobs/sha256", tarfile.DIRTYPE, 0o755))
        for path, data in files:
            tar.addfile(entry(path, tarfile.REGTYPE, 0o644, len(data)), io.BytesIO(data))
    os.replace(tmp_path, out_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
