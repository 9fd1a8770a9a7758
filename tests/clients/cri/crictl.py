#!/usr/bin/python3
"""A minimal CRI client for tests/clients/cri.sh: the calls a kubelet makes
for one pod, shaped like crictl (Debian 12 does not package cri-tools).

usage: crictl.py --endpoint unix:///PATH [--rpc-timeout SECONDS] COMMAND [ARGS]
  version                     runtime name and CRI API version
  status                      TYPE=true|false per runtime condition
  image-id REF                the image's id (empty when the runtime lacks it)
  runp POD.json [HANDLER]     run a pod sandbox; prints its id
  inspectp POD_ID             "STATE HANDLER" (SANDBOX_READY vigil)
  pods                        the sandbox ids, one a line
  create POD_ID CTR.json POD.json
                              create a container; prints its id
  start | stop | rm CTR_ID    start it; stop it ([--timeout SECONDS] first,
                              default 0: SIGKILL at once); remove it
  inspect CTR_ID              "STATE EXIT_CODE" (CONTAINER_RUNNING 0)
  ps [POD_ID]                 the container ids, one a line
  exec [--timeout S] CTR_ID CMD...
                              ExecSync: relays stdout and stderr, exits with
                              the command's status
  stopp | rmp POD_ID          stop the sandbox; remove it

POD.json and CTR.json are PodSandboxConfig and ContainerConfig in protobuf's
JSON mapping, as crictl takes them. The messages come from cri_subset.proto,
compiled by protoc into a directory on PYTHONPATH (cri.sh does it). A failed
RPC prints "crictl.py: METHOD: CODE: DETAILS" and exits 1.
"""

import json
import sys

import grpc
from google.protobuf import json_format

import cri_subset_pb2 as api

RUNTIME = "/runtime.v1.RuntimeService/"
IMAGE = "/runtime.v1.ImageService/"

# method -> (service prefix, request type, response type)
METHODS = {
    "Version": (RUNTIME, api.VersionRequest, api.VersionResponse),
    "Status": (RUNTIME, api.StatusRequest, api.StatusResponse),
    "RunPodSandbox": (RUNTIME, api.RunPodSandboxRequest, api.RunPodSandboxResponse),
    "StopPodSandbox": (RUNTIME, api.StopPodSandboxRequest, api.StopPodSandboxResponse),
    "RemovePodSandbox": (RUNTIME, api.RemovePodSandboxRequest, api.RemovePodSandboxResponse),
    "PodSandboxStatus": (RUNTIME, api.PodSandboxStatusRequest, api.PodSandboxStatusResponse),
    "ListPodSandbox": (RUNTIME, api.ListPodSandboxRequest, api.ListPodSandboxResponse),
    "CreateContainer": (RUNTIME, api.CreateContainerRequest, api.CreateContainerResponse),
    "StartContainer": (RUNTIME, api.StartContainerRequest, api.StartContainerResponse),
    "StopContainer": (RUNTIME, api.StopContainerRequest, api.StopContainerResponse),
    "RemoveContainer": (RUNTIME, api.RemoveContainerRequest, api.RemoveContainerResponse),
    "ListContainers": (RUNTIME, api.ListContainersRequest, api.ListContainersResponse),
    "ContainerStatus": (RUNTIME, api.ContainerStatusRequest, api.ContainerStatusResponse),
    "ExecSync": (RUNTIME, api.ExecSyncRequest, api.ExecSyncResponse),
    "ImageStatus": (IMAGE, api.ImageStatusRequest, api.ImageStatusResponse),
}


class Failed(Exception):
    pass


class Client:
    def __init__(self, endpoint, timeout):
        self.channel = grpc.insecure_channel(endpoint)
        self.timeout = timeout

    def call(self, method, request):
        prefix, request_type, response_type = METHODS[method]
        assert isinstance(request, request_type)
        stub = self.channel.unary_unary(prefix + method,
                                        request_serializer=request_type.SerializeToString,
                                        response_deserializer=response_type.FromString)
        try:
            return stub(request, timeout=self.timeout)
        except grpc.RpcError as e:
            raise Failed("%s: %s: %s" % (method, e.code().name, e.details())) from None


def load(path, message_type):
    with open(path) as f:
        return json_format.ParseDict(json.load(f), message_type())


def take_flag(args, name, default):
    """Removes `--name VALUE` from args and returns VALUE (or default)."""
    if name in args:
        i = args.index(name)
        if i + 1 >= len(args):
            raise Failed(name + " needs a value")
        value = args[i + 1]
        del args[i:i + 2]
        return value
    return default


def run(client, command, args):
    if command == "version":
        r = client.call("Version", api.VersionRequest(version="v1"))
        print(r.runtime_name, r.runtime_version, r.runtime_api_version)
    elif command == "status":
        r = client.call("Status", api.StatusRequest())
        for c in r.status.conditions:
            print("%s=%s" % (c.type, "true" if c.status else "false"))
    elif command == "image-id":
        r = client.call("ImageStatus", api.ImageStatusRequest(image=api.ImageSpec(image=args[0])))
        print(r.image.id)
    elif command == "runp":
        request = api.RunPodSandboxRequest(config=load(args[0], api.PodSandboxConfig),
                                           runtime_handler=args[1] if len(args) > 1 else "")
        print(client.call("RunPodSandbox", request).pod_sandbox_id)
    elif command == "inspectp":
        s = client.call("PodSandboxStatus", api.PodSandboxStatusRequest(pod_sandbox_id=args[0]))
        print(api.PodSandboxState.Name(s.status.state), s.status.runtime_handler)
    elif command == "pods":
        for item in client.call("ListPodSandbox", api.ListPodSandboxRequest()).items:
            print(item.id)
    elif command == "create":
        request = api.CreateContainerRequest(pod_sandbox_id=args[0],
                                             config=load(args[1], api.ContainerConfig),
                                             sandbox_config=load(args[2], api.PodSandboxConfig))
        print(client.call("CreateContainer", request).container_id)
    elif command == "start":
        client.call("StartContainer", api.StartContainerRequest(container_id=args[0]))
    elif command == "stop":
        timeout = int(take_flag(args, "--timeout", "0") if args[0] == "--timeout" else 0)
        client.call("StopContainer", api.StopContainerRequest(container_id=args[0],
                                                              timeout=timeout))
    elif command == "rm":
        client.call("RemoveContainer", api.RemoveContainerRequest(container_id=args[0]))
    elif command == "inspect":
        s = client.call("ContainerStatus", api.ContainerStatusRequest(container_id=args[0]))
        print(api.ContainerState.Name(s.status.state), s.status.exit_code)
    elif command == "ps":
        f = api.ContainerFilter(pod_sandbox_id=args[0] if args else "")
        for c in client.call("ListContainers", api.ListContainersRequest(filter=f)).containers:
            print(c.id)
    elif command == "exec":
        # Only before the id: what follows it is the command's own argv.
        timeout = int(take_flag(args, "--timeout", "0") if args[0] == "--timeout" else 0)
        r = client.call("ExecSync", api.ExecSyncRequest(container_id=args[0], cmd=args[1:],
                                                        timeout=timeout))
        sys.stdout.buffer.write(r.stdout)
        sys.stderr.buffer.write(r.stderr)
        return r.exit_code
    elif command == "stopp":
        client.call("StopPodSandbox", api.StopPodSandboxRequest(pod_sandbox_id=args[0]))
    elif command == "rmp":
        client.call("RemovePodSandbox", api.RemovePodSandboxRequest(pod_sandbox_id=args[0]))
    else:
        raise Failed("unknown command " + repr(command))
    return 0


def main(argv):
    args = argv[1:]
    options = {"--endpoint": None, "--rpc-timeout": "60"}
    try:
        # Global flags come first; whatever follows the command is its own.
        while args and args[0] in options:
            name = args[0]
            options[name] = take_flag(args, name, None)
        if options["--endpoint"] is None or not args:
            sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
            return 2
        client = Client(options["--endpoint"], float(options["--rpc-timeout"]))
        return run(client, args[0], args[1:])
    except (Failed, IndexError, ValueError, OSError, json_format.ParseError) as e:
        sys.stderr.write("crictl.py: %s\n" % (e or "missing argument"))
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
