"""``paddle.fluid.incubate.fleet.base.role_maker`` (1.8): role makers read the launcher's
environment (``PADDLE_TRAINER_ID``, ``PADDLE_TRAINERS_NUM``, ``PADDLE_TRAINER_ENDPOINTS``,
``PADDLE_CURRENT_ENDPOINT``), as ``paddle.distributed.launch`` sets it."""
from __future__ import annotations

import os

from compat import _lazy
from compat._runtime import legacy


class Role(object):
    WORKER = 1
    SERVER = 2
    HETER_WORKER = 3


class RoleMakerBase(object):
    def __init__(self):
        self._role = Role.WORKER
        self._current_id = 0
        self._worker_endpoints = []
        self._server_endpoints = []
        self._is_collective = True

    def generate_role(self):
        pass

    def is_worker(self):
        return self._role == Role.WORKER

    def is_server(self):
        return self._role == Role.SERVER

    def is_first_worker(self):
        return self.is_worker() and self._current_id == 0

    def worker_index(self):
        return self._current_id

    def server_index(self):
        return self._current_id

    def worker_num(self):
        return max(1, len(self._worker_endpoints))

    def get_trainer_endpoints(self):
        return self._worker_endpoints

    def get_pserver_endpoints(self):
        return self._server_endpoints


@legacy("paddle.fluid.incubate.fleet.base.role_maker.PaddleCloudRoleMaker",
        replacement="paddle.distributed.fleet.PaddleCloudRoleMaker")
class PaddleCloudRoleMaker(RoleMakerBase):
    def __init__(self, is_collective=False):
        super().__init__()
        self._is_collective = is_collective
        self.generate_role()

    def generate_role(self):
        self._current_id = int(os.getenv("PADDLE_TRAINER_ID", "0"))
        eps = os.getenv("PADDLE_TRAINER_ENDPOINTS", "")
        self._worker_endpoints = [e for e in eps.split(",") if e] or ["127.0.0.1:6170"]
        self._current_endpoint = os.getenv("PADDLE_CURRENT_ENDPOINT", self._worker_endpoints[0])
        if not self._is_collective:  # 1.x parameter-server variables (server list)
            servers = os.getenv("PADDLE_PSERVERS_IP_PORT_LIST", "")
            self._server_endpoints = [e for e in servers.split(",") if e]


@legacy("paddle.fluid.incubate.fleet.base.role_maker.UserDefinedRoleMaker",
        replacement="paddle.distributed.fleet.UserDefinedRoleMaker")
class UserDefinedRoleMaker(RoleMakerBase):
    """As 1.8: the arguments are checked, and the role maker knows no worker endpoints
    (``fleet.worker_endpoints()`` is ``[]``); ``server_endpoints`` are the servers'."""

    def __init__(self, current_id=0, role=Role.WORKER, worker_num=0, server_endpoints=None):
        super().__init__()
        if not isinstance(server_endpoints, list):
            raise TypeError("server_endpoints must be as string list")
        if len(server_endpoints) <= 0:
            raise ValueError("the length of server_endpoints list must be greater than 0")
        if len(server_endpoints) != len(set(server_endpoints)):
            raise ValueError("server_endpoints can't have duplicate elements")
        if not all(isinstance(e, str) for e in server_endpoints):
            raise TypeError("every element in server_endpoints list must be as string")
        if role != Role.WORKER and role != Role.SERVER:
            raise TypeError("role must be as Role")
        if not isinstance(current_id, int):
            raise TypeError("current_id must be as int")
        if current_id < 0:
            raise ValueError("current_id must be greater than or equal to 0")
        if role == Role.SERVER and current_id >= len(server_endpoints):
            raise ValueError("if role is Role.SERVER, current_id must be less than or equal "
                             "to len(server_endpoints) - 1")
        if not isinstance(worker_num, int):
            raise TypeError("worker_num must be as int")
        if worker_num <= 0:
            raise ValueError("worker_num must be greater than 0")
        self._current_id = current_id
        self._role = role
        self._worker_num = worker_num
        self._server_endpoints = server_endpoints

    def worker_num(self):
        return self._worker_num


@legacy("paddle.fluid.incubate.fleet.base.role_maker.UserDefinedCollectiveRoleMaker",
        replacement="paddle.distributed.fleet.UserDefinedRoleMaker")
class UserDefinedCollectiveRoleMaker(RoleMakerBase):
    def __init__(self, current_id=0, worker_endpoints=None):
        super().__init__()
        self._current_id = current_id
        self._worker_endpoints = worker_endpoints or ["127.0.0.1:6170"]


_lazy.attach(globals())
