"""A package index of one wheel (PEP 503's simple layout) for pip to
install from the test hosts (tests/clients/egress.sh): vigiltest 1.0."""
import base64
import hashlib
import os
import sys
import zipfile

root = sys.argv[1]
files = {
    "vigiltest/__init__.py": "GREETING = 'installed through the allow-list'\n",
    "vigiltest-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: vigiltest\nVersion: 1.0\n",
    "vigiltest-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: vigil-test\n"
    "Root-Is-Purelib: true\nTag: py3-none-any\n",
}
record = []
for name, text in files.items():
    digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
    record.append(f"{name},sha256={digest.decode()},{len(text)}")
record.append("vigiltest-1.0.dist-info/RECORD,,")
files["vigiltest-1.0.dist-info/RECORD"] = "\n".join(record) + "\n"
package = os.path.join(root, "simple", "vigiltest")
os.makedirs(package, exist_ok=True)
wheel = "vigiltest-1.0-py3-none-any.whl"
with zipfile.ZipFile(os.path.join(package, wheel), "w") as archive:
    for name, text in files.items():
        archive.writestr(name, text)
with open(os.path.join(package, "index.html"), "w") as index:
    index.write(f'<html><body><a href="{wheel}">{wheel}</a></body></html>\n')
