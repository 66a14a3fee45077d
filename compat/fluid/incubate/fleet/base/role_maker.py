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


@legacy("paddle.fluid.incubate.fleet.base.role_maker.UserDefinedRoleMaker",
        replacement="paddle.distributed.fleet.UserDefinedRoleMaker")
class UserDefinedRoleMaker(RoleMakerBase):
    def __init__(self, current_id=0, role=Role.WORKER, worker_num=0, server_endpoints=None):
        super().__init__()
        self._current_id = current_id
        self._role = role
        self._worker_endpoints = ["127.0.0.1:%d" % (6170 + i) for i in range(max(1, worker_num))]
        self._server_endpoints = server_endpoints or []


@legacy("paddle.fluid.incubate.fleet.base.role_maker.UserDefinedCollectiveRoleMaker",
        replacement="paddle.distributed.fleet.UserDefinedRoleMaker")
class UserDefinedCollectiveRoleMaker(RoleMakerBase):
    def __init__(self, current_id=0, worker_endpoints=None):
        super().__init__()
        self._current_id = current_id
        self._worker_endpoints = worker_endpoints or ["127.0.0.1:6170"]


_lazy.attach(globals())
