"""Writes BUNDLE/config.json for one client of tests/clients/egress.sh:
BUNDLE/config.base.json (`vigil spec`'s) with the host's /usr and
certificates bound read-only, the given network namespace, the policy as
its annotation, and ARGS as the process."""
import json
import sys

bundle, policy, netns, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
with open(bundle + "/config.base.json") as base:
    config = json.load(base)
config["process"]["terminal"] = False
config["process"]["args"] = args
config["process"]["cwd"] = "/work"
config["process"]["env"] = [
    "PATH=/usr/local/bin:/usr/bin:/bin",
    "HOME=/tmp",
    "SSL_CERT_FILE=/etc/test-ca.pem",
]
config["root"]["readonly"] = True
for destination, source in [("/usr", "/usr"), ("/etc/ssl", "/etc/ssl"),
                            ("/etc/alternatives", "/etc/alternatives")]:
    config["mounts"].append({"destination": destination, "type": "bind", "source": source,
                             "options": ["rbind", "ro", "nosuid", "nodev"]})
config["mounts"].append({"destination": "/tmp", "type": "tmpfs", "source": "tmpfs",
                         "options": ["nosuid", "nodev", "size=256m"]})
config["mounts"].append({"destination": "/work", "type": "tmpfs", "source": "tmpfs",
                         "options": ["nosuid", "nodev", "size=16m"]})
for namespace in config["linux"]["namespaces"]:
    if namespace["type"] == "network":
        namespace["path"] = netns
config["annotations"] = {"dev.vigil.policy": policy}
with open(bundle + "/config.json", "w") as out:
    json.dump(config, out, indent=1)
