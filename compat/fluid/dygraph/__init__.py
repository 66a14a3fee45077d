"""``paddle.fluid.dygraph`` (1.8)."""
from compat import _lazy
from compat.fluid.dygraph import (base, checkpoint, container, io, jit, layers,  # noqa: F401
                                  learning_rate_scheduler, losses, nn, parallel)
from compat.fluid.dygraph.base import (BackwardStrategy, disable_dygraph,  # noqa: F401
                                       disable_imperative, enable_dygraph, enable_imperative,
                                       enabled, grad, guard, no_grad, to_variable)
from compat.fluid.dygraph.checkpoint import load_dygraph, save_dygraph  # noqa: F401
from compat.fluid.dygraph.io import TranslatedLayer  # noqa: F401
from compat.fluid.dygraph.container import LayerList, ParameterList, Sequential  # noqa: F401
from compat.fluid.dygraph.jit import (ProgramTranslator, TracedLayer, declarative,  # noqa: F401
                                      dygraph_to_static_func)
from compat.fluid.dygraph.layers import Layer  # noqa: F401
from compat.fluid.dygraph.losses import BCELoss, L1Loss, MSELoss, NLLLoss  # noqa: F401
from compat.fluid.dygraph.learning_rate_scheduler import *  # noqa: F401,F403
from compat.fluid.dygraph.learning_rate_scheduler import LearningRateDecay  # noqa: F401
from compat.fluid.dygraph.nn import *  # noqa: F401,F403
from compat.fluid.dygraph.parallel import DataParallel, ParallelEnv, prepare_context  # noqa: F401

_lazy.attach(globals())
