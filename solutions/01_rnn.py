# %% [markdown] nbgrader={"grade": false, "grade_id": "title_text", "locked": true, "schema_version": 3, "solution": false}
# # A plain RNN that tries to reverse digits
#
# In this notebook, we:
#
# - build batches for a toy task: read a sequence of digits and write it back in reverse order;
# - write a simple-cell recurrent neural network (RNN) with MyGrad and MyNN, vectorised over the batch;
# - train it with a whole-sequence accuracy as our yardstick, and measure that accuracy for every length;
# - find out why it fails beyond a single digit, which is the reason for the encoder–decoder model of the next notebook;
# - follow its gradient back through time, see when gradients vanish or explode, and meet the gated cell (GRU),
#   whose gates can learn to keep them alive.
#
# Shapes use one vocabulary throughout the course: `T` time steps, `N` sequences in a batch,
# `C` entries in an input one-hot vector, `D` entries in the hidden state, `K` output classes.
# Time is always axis 0 and the batch axis 1.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
import numpy as np
import mygrad as mg
import matplotlib.pyplot as plt

from course.layers import dense  # MyNN's dense layer (the course's faster drop-in)
from mynn.optimizers.adam import Adam
from mygrad.nnet import glorot_normal, softmax_crossentropy

from course.runtime import pick
from course.progress import progress
from course.figures import setup_backend, create_plot

setup_backend()

# %% [markdown] nbgrader={"grade": false, "grade_id": "task_text", "locked": true, "schema_version": 3, "solution": false}
# ## The task: reverse a sequence of digits
#
# Every sequence is a string of digits `0`–`9`. The vocabulary has twelve tokens, so $C = K = 12$:
#
# | index | token |
# |---|---|
# | 0–9 | the digits |
# | 10 | `<S>`, a start token (not used in this notebook; the decoder of the next one needs it) |
# | 11 | `<E>`, the end token |
#
# The input is the digits followed by `<E>`; the target is the same digits backwards, again followed by `<E>`.
# With the three digits `3 1 4` we get $T = 4$ steps:
#
# | step $t$ | 1 | 2 | 3 | 4 |
# |---|---|---|---|---|
# | input $x_t$ | `3` | `1` | `4` | `<E>` |
# | target | `4` | `1` | `3` | `<E>` |
#
# Each input token is fed to the network as a one-hot vector of length $C$.
# All sequences of a batch share one length, so a batch is a single array of shape $(T, N, C)$.

# %% [markdown] nbgrader={"grade": false, "grade_id": "generate_batch_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part A: a batch of sequences (2 points)
#
# Draw the number of digits $T - 1$ uniformly from $\{L_\min, \dots, L_\max\}$ (both ends included),
# then $N$ sequences $d_{1,n}, \dots, d_{T-1,n}$ of digits, each uniform in $\{0, \dots, 9\}$. With
# $e_i \in \{0, 1\}^{12}$ the one-hot vector of token $i$,
#
# $$
# x_{t,n} = e_{d_{t,n}} \quad (t < T), \qquad x_{T,n} = e_{11}, \qquad
# \text{target}_{t,n} = d_{T-t,n} \quad (t < T), \qquad \text{target}_{T,n} = 11.
# $$
#
# Complete `generate_batch` with NumPy's global generator (`np.random.randint`, so that
# `np.random.seed` makes a batch reproducible) and without a Python loop over the batch.
# The one-hot array must be `float32`.

# %% nbgrader={"grade": false, "grade_id": "generate_batch", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
START_TOKEN = 10  # <S>: reserved for the decoder of the next notebook
END_TOKEN = 11  # <E>: closes every input and every target


def generate_batch(seq_len_min=1, seq_len_max=20, batch_size=10):
    """Make N digit sequences of one random length, with their reversals.

    Parameters
    ----------
    seq_len_min : int, default=1
        The fewest digits a sequence may have (the end token is not counted).
    seq_len_max : int, default=20
        The most digits a sequence may have (inclusive).
    batch_size : int, default=10
        N, the number of sequences.

    Returns
    -------
    one_hot_x : numpy.ndarray, shape=(T, N, 12), dtype=float32
        The digits as one-hot vectors, then the end token (index 11).
    target : numpy.ndarray, shape=(T, N), integer dtype
        The digits in reverse order, then 11.
    digits : numpy.ndarray, shape=(T - 1, N), integer dtype
        The digits, each in 0..9.

    Notes
    -----
    T - 1 is drawn uniformly from [seq_len_min, seq_len_max] with NumPy's
    global generator: ``np.random.seed`` reproduces a batch.
    """
    ### BEGIN SOLUTION
    n_digits = np.random.randint(seq_len_min, seq_len_max + 1)  # T - 1
    digits = np.random.randint(0, 10, size=(n_digits, batch_size))

    one_hot_x = np.zeros((n_digits + 1, batch_size, 12), dtype=np.float32)
    steps = np.arange(n_digits)[:, np.newaxis]  # shape (T - 1, 1): broadcasts against digits
    one_hot_x[steps, np.arange(batch_size), digits] = 1
    one_hot_x[-1, :, END_TOKEN] = 1

    last_row = np.full((1, batch_size), END_TOKEN, dtype=digits.dtype)
    target = np.concatenate([digits[::-1], last_row], axis=0)
    return one_hot_x, target, digits
    ### END SOLUTION


# %%
# Try it: two sequences of three digits. Compare the columns of the three arrays.
np.random.seed(5)
x_demo, target_demo, digits_demo = generate_batch(3, 3, 2)
print("one-hot shape:", x_demo.shape, x_demo.dtype)
print("digits (one column per sequence):", digits_demo, sep="\n")
print("input tokens (argmax of the one-hot vectors):", x_demo.argmax(axis=-1), sep="\n")
print("target:", target_demo, sep="\n")

# %% course={"task": "generate_batch"} nbgrader={"grade": true, "grade_id": "generate_batch__shapes_and_types", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that generate_batch returns arrays of the right shapes, types and lengths, with digits drawn uniformly
np.random.seed(0)
try:
    x, target, digits = generate_batch(4, 4, 3)
    error = None
except ValueError as err:  # e.g. np.random.randint(4, 4): nothing to draw from
    error = str(err)
assert error is None, f"generate_batch(4, 4, 3) raised ValueError({error!r}): seq_len_max is included, " \
    "and np.random.randint excludes its upper bound"
assert x.shape == (5, 3, 12), f"one-hot shape {x.shape}, expected (T, N, 12) = (5, 3, 12)"
assert x.dtype == np.float32, f"the one-hot array is {x.dtype}, expected float32"
assert target.shape == (5, 3), \
    f"target shape {target.shape}, expected (T, N) = (5, 3): the reversed digits, then the end token 11"
assert digits.shape == (4, 3), f"digits shape {digits.shape}, expected (T - 1, N) = (4, 3)"
assert np.issubdtype(target.dtype, np.integer), "target must hold integers"
assert np.issubdtype(digits.dtype, np.integer), "digits must hold integers"
assert np.all(x[-1, :, 11] == 1), "the end token (index 11) must sit in the last position"
assert np.all(x.sum(axis=-1) == 1), "every position must hold exactly one token"
assert np.all(x[..., 10] == 0), "the start token (index 10) is not used in this notebook"
x, target, digits = generate_batch(30, 30, 100)
assert digits.shape == (30, 100), f"generate_batch(30, 30, 100) gave digits of shape {digits.shape}, expected (30, 100)"
assert np.unique(digits, axis=1).shape[1] > 1, \
    "all 100 sequences of the batch hold the same digits: draw digits of shape (T - 1, N), one for each sequence"
assert all(np.any(digits == d) for d in range(10)), \
    f"3000 digits drawn uniformly from 0..9 never include {sorted(set(range(10)) - set(np.unique(digits).tolist()))}: " \
    "randint excludes its upper bound, so it must be 10"
assert all(abs(np.sum(digits == d) - 300) < 80 for d in range(10)), \
    "3000 digits drawn uniformly from 0..9 should hold each digit about 300 times: draw every digit with equal chance"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("generate_batch__shapes_and_types")  # this submission's own inputs
legacy_seed = int(rng.integers(2**31))  # for the global generator generate_batch draws from
np.random.seed(legacy_seed)
low = int(rng.integers(1, 5))
high = low + int(rng.integers(2, 5))
every_length = set(range(low, high + 1))
lengths = {generate_batch(low, high, 1)[2].shape[0] for _ in range(300)}
assert lengths == every_length, "with seq_len_min < seq_len_max, the lengths must cover every value from seq_len_min to seq_len_max, both included"
lengths = {generate_batch()[2].shape[0] for _ in range(600)}
assert lengths == set(range(1, 21)), "with the default arguments, the lengths must cover every value from seq_len_min to seq_len_max, both included"
x, target, digits = generate_batch(1, 1, 1)
assert x.shape == (2, 1, 12) and target.shape == (2, 1) and digits.shape == (1, 1), \
    f"for a single sequence of a single digit, the shapes are {x.shape}, {target.shape}, {digits.shape}; " \
    "expected (T, N, C), (T, N) and (T - 1, N), with T counting the end token"
L, N = int(rng.integers(4, 13)), int(rng.integers(20, 61))
one_hot_shape = (L + 1, N, 12)
x, target, digits = generate_batch(L, L, N)
assert x.shape == one_hot_shape and x.dtype == np.float32, \
    f"a one-hot array of shape {x.shape} and dtype {x.dtype}; expected (T, N, C), float32"
assert np.all(x.sum(axis=-1) == 1) and np.all(x[-1, :, 11] == 1), \
    "every position must hold exactly one token, and the last position the end token"
assert np.all(x[:-1, :, 10:] == 0), "the end token appears only in the last position"
### END HIDDEN TESTS

# %% course={"task": "generate_batch"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "generate_batch__reversed_target", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that the one-hot input encodes the digits and the target holds them reversed
np.random.seed(1)
x, target, digits = generate_batch(6, 6, 5)
assert x.shape == (7, 5, 12) and target.shape == (7, 5) and digits.shape == (6, 5), \
    f"generate_batch(6, 6, 5) gave shapes {x.shape}, {target.shape}, {digits.shape}; expected (7, 5, 12), (7, 5), (6, 5)"
assert np.array_equal(x[:-1].argmax(axis=-1), digits), "x[t] must be the one-hot vector of digits[t]"
assert np.array_equal(target[:-1], digits[::-1]), \
    "target[:-1] must be the digits in reverse time order (digits[::-1], axis 0), not reversed along the batch axis"
assert np.all(target[-1] == 11), "the target must end with the end token 11"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("generate_batch__reversed_target")  # this submission's own inputs
legacy_seed = int(rng.integers(2**31))  # for the global generator generate_batch draws from
np.random.seed(legacy_seed)
L, N = int(rng.integers(16, 25)), int(rng.integers(80, 121))
shapes_wanted = [(L + 1, N, 12), (L + 1, N), (L, N)]
per_digit, spread = L * N / 10, 5 * np.sqrt(L * N * 0.09)  # each digit's count: mean, and five standard deviations
x, target, digits = generate_batch(L, L, N)
assert [x.shape, target.shape, digits.shape] == shapes_wanted, \
    f"on a long batch the shapes are {x.shape}, {target.shape}, {digits.shape}; expected (T, N, C), (T, N) and (T - 1, N)"
assert np.unique(digits, axis=0).shape[0] > 1, \
    "every sequence repeats one digit at all its steps: draw digits of shape (T - 1, N), one for each step"
assert digits.min() >= 0 and digits.max() <= 9, f"digits run from the smallest to the largest digit, got values from {digits.min()} to {digits.max()}"
assert all(abs(np.sum(digits == d) - per_digit) < spread for d in range(10)), \
    "on a long batch some digits come up far more often than others: draw every digit with equal chance"
assert np.array_equal(target[:-1], digits[::-1]) and np.all(target[-1] == 11), \
    "on a long batch, the target must be the digits reversed in time, then the end token"
assert np.array_equal(x[:-1].argmax(axis=-1), digits), "on a long batch, x[t] must be the one-hot vector of digits[t]"
N = int(rng.integers(5, 13))
short_shapes, end_tokens = [(2, N), (1, N)], np.full((1, N), 11)
x, target, digits = generate_batch(1, 1, N)
assert [target.shape, digits.shape] == short_shapes, \
    f"with one digit per sequence, target and digits have shapes {target.shape} and {digits.shape}; expected (T, N) and (T - 1, N)"
assert np.array_equal(target, np.concatenate([digits, end_tokens])), \
    "with one digit per sequence, the target is that digit, then the end token"
seed, N = int(rng.integers(2**31)), int(rng.integers(3, 9))
np.random.seed(seed)
first = generate_batch(1, 20, N)
np.random.seed(seed)
second = generate_batch(1, 20, N)
assert all(np.array_equal(a, b) for a, b in zip(first, second)), "np.random.seed must reproduce a batch"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "rnn_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part B: a simple-cell RNN (3 points)
#
# This is the simple (Elman, or *vanilla*) RNN. At step $t$ the cell mixes the new input with its previous state,
# then reads out scores:
#
# $$
# h_t = \tanh\!\big(x_t W_{xh} + h_{t-1} W_{hh} + b\big), \qquad y_t = h_t W_{hy} + b_y, \qquad t = 1, \dots, T,
# $$
#
# with $x_t$ of shape $(N, C)$, $h_t$ of shape $(N, D)$, $y_t$ of shape $(N, K)$, and five learnable tensors:
# $W_{xh}$ $(C, D)$, $b$ $(D,)$, $W_{hh}$ $(D, D)$, $W_{hy}$ $(D, K)$, $b_y$ $(K,)$.
# The state starts from $h_0$, which is zeros unless the caller passes one.
# MyNN's `dense` layer stores its bias as a row, $(1, D)$ or $(1, K)$, which broadcasts over the batch just as
# $(D,)$ or $(K,)$ would.

# %% [markdown] nbgrader={"grade": false, "grade_id": "rnn_picture_text", "locked": true, "schema_version": 3, "solution": false}
# ![The RNN unrolled over T steps: each input x_t, of shape (N, C), enters a tanh cell that also receives the previous state; the new state h_t, of shape (N, D), goes right to the next step and up to the scores y_t, of shape (N, K).](figures/rnn_unrolled.svg)
#
# *Figure: one column per step; each column computes $h_t = \tanh(x_t W_{xh} + h_{t-1} W_{hh} + b)$ and $y_t = h_t W_{hy} + b_y$ with the same weights, and only the arrows to the right carry information from one step to the next.*

# %% [markdown] nbgrader={"grade": false, "grade_id": "rnn_task_text", "locked": true, "schema_version": 3, "solution": false}
# Build `RNN` from three MyNN `dense` layers with `weight_initializer=glorot_normal`; the recurrent one
# needs no bias (`bias=False`), since $b$ already shifts the sum. Only the recurrence needs a loop:
#
# 1. apply the input layer to all $T$ steps at once (a $(T, N, C)$ array times $W_{xh}$ gives $(T, N, D)$);
# 2. loop over $t$ for $h_t$, collecting the states in a list, and `mg.stack` them once;
# 3. apply the output layer once, to the stacked $(T, N, D)$ states.
#
# Keep everything `float32` (a default `np.zeros` is `float64`). The tests set weights of their own through
# `parameters`, each tensor found by its shape, so list all five there. Complete the class `RNN`.

# %% nbgrader={"grade": false, "grade_id": "rnn", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
class RNN:
    """A simple-cell recurrent network that returns its scores and its states."""

    def __init__(self, dim_input, dim_recurrent, dim_output):
        """Create the input, recurrent and output layers.

        Parameters
        ----------
        dim_input : int
            C, the size of an input vector.
        dim_recurrent : int
            D, the size of the hidden state.
        dim_output : int
            K, the number of output classes.
        """
        ### BEGIN SOLUTION
        self.dim_recurrent = dim_recurrent
        self.input_layer = dense(dim_input, dim_recurrent, weight_initializer=glorot_normal)
        self.recurrent_layer = dense(
            dim_recurrent, dim_recurrent, weight_initializer=glorot_normal, bias=False
        )
        self.output_layer = dense(dim_recurrent, dim_output, weight_initializer=glorot_normal)
        ### END SOLUTION

    def __call__(self, x, h=None):
        """Run the cell over every step of a batch of sequences.

        Parameters
        ----------
        x : Union[numpy.ndarray, mygrad.Tensor], shape=(T, N, C)
            The input vectors, time first.
        h : Optional[Union[numpy.ndarray, mygrad.Tensor]], shape=(1, N, D)
            The initial state h_0. None means zeros.

        Returns
        -------
        y : mygrad.Tensor, shape=(T, N, K)
            The scores y_1, ..., y_T.
        h : mygrad.Tensor, shape=(T, N, D)
            The states h_1, ..., h_T (without h_0).
        """
        ### BEGIN SOLUTION
        T, N = x.shape[:2]
        if h is None:
            h = np.zeros((1, N, self.dim_recurrent), dtype=np.float32)

        x_part = self.input_layer(x)  # x_t W_xh + b for all t at once: (T, N, D)
        h_t = h[0]  # (N, D)
        states = []
        for t in range(T):
            h_t = mg.tanh(x_part[t] + self.recurrent_layer(h_t))
            states.append(h_t)

        h_all = mg.stack(states)  # (T, N, D)
        return self.output_layer(h_all), h_all
        ### END SOLUTION

    @property
    def parameters(self):
        """All learnable tensors of the model, as a tuple (for the optimizer).

        Returns
        -------
        Tuple[mygrad.Tensor, ...]
        """
        ### BEGIN SOLUTION
        return self.input_layer.parameters + self.recurrent_layer.parameters + self.output_layer.parameters
        ### END SOLUTION


# %%
# Try it: an untrained RNN on a batch of two sequences.
np.random.seed(0)
rnn_demo = RNN(dim_input=12, dim_recurrent=8, dim_output=12)
x_demo, target_demo, _ = generate_batch(3, 3, 2)
y_demo, h_demo = rnn_demo(x_demo)
print("scores:", y_demo.shape, y_demo.dtype, "  states:", h_demo.shape, h_demo.dtype)
print("parameter shapes:", [p.shape for p in rnn_demo.parameters])

# %% course={"task": "rnn"} nbgrader={"grade": true, "grade_id": "rnn__shapes_and_parameters", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that RNN returns float32 tensors of the right shapes, lists its five parameters, and recurs on weights set here
def chosen_weights():
    # weights for W_xh (3, 4), W_hh (4, 4) and W_hy (4, 5), by their shapes; the biases are left at zero
    rng = np.random.default_rng(7)
    return {shape: rng.normal(scale=0.7, size=shape).astype(np.float32) for shape in [(3, 4), (4, 4), (4, 5)]}


model = RNN(3, 4, 5)  # C = 3, D = 4, K = 5
x = np.random.default_rng(0).normal(size=(6, 2, 3)).astype(np.float32)  # T = 6, N = 2
y, h = model(x)
assert isinstance(y, mg.Tensor) and isinstance(h, mg.Tensor), "return MyGrad tensors"
assert h.shape == (6, 2, 4), f"states have shape {h.shape}, expected (T, N, D) = (6, 2, 4); leave h_0 out"
assert y.shape == (6, 2, 5), f"scores have shape {y.shape}, expected (T, N, K) = (6, 2, 5)"
assert y.dtype == np.float32 and h.dtype == np.float32, \
    f"got {y.dtype} and {h.dtype}, expected float32: make every array with dtype=np.float32 (np.zeros is float64)"
y1, h1 = model(x[:1], h[-1:])  # one more step, from a given state
assert y1.shape == (1, 2, 5) and h1.shape == (1, 2, 4), \
    f"one step from a given state gave shapes {y1.shape} and {h1.shape}, expected (1, 2, 5) and (1, 2, 4)"
params = model.parameters
assert isinstance(params, tuple), "parameters must be a tuple (a property, not a method)"
assert all(isinstance(p, mg.Tensor) for p in params), "every parameter must be a MyGrad tensor"
shapes = [p.shape for p in params]
for shape in [(3, 4), (4, 4), (4, 5)]:
    assert shapes.count(shape) == 1, f"expected one weight of shape {shape} in {shapes}"
assert any(p.size == 4 and p.ndim <= 2 for p in params), f"the bias b (D entries) is missing from {shapes}"
assert any(p.size == 5 and p.ndim <= 2 for p in params), f"the bias b_y (K entries) is missing from {shapes}"
model = RNN(3, 4, 5)
for p in model.parameters:
    p.data[...] = chosen_weights().get(p.shape, 0)  # each weight by its shape, the biases zero
y, h = model(x)
h_last_expected = np.array([[-0.8941, -0.7338, -0.5742, 0.3969], [-0.3147, 0.405, -0.1542, -0.0331]])  # h_T
assert np.allclose(h.data[-1], h_last_expected, atol=1e-4), \
    f"with the weights set here (biases zero) the last states h_T are\n{h.data[-1]}\nexpected\n{h_last_expected}\n" \
    "h_t = tanh(x_t W_xh + h_(t-1) W_hh + b): does each step read the state before it, through tanh?"
# the weights start as glorot_normal: mean 0, standard deviation sqrt(2 / (fan_in + fan_out))
np.random.seed(3)
big_params = RNN(40, 60, 30).parameters
for p in big_params:
    if p.ndim == 2 and min(p.shape) > 1:  # the three weight matrices, not the biases
        mean, std, want = float(p.data.mean()), float(p.data.std()), float(np.sqrt(2 / sum(p.shape)))
        assert abs(mean) < 0.02 and 0.85 * want < std < 1.15 * want, (
            f"the weight of shape {p.shape} has mean {mean:.3f} and std {std:.3f}; glorot_normal gives "
            f"mean 0 and std {want:.3f}: pass weight_initializer=glorot_normal to every dense layer"
        )
### BEGIN HIDDEN TESTS
assert len(params) in (5, 6), f"list the five parameters W_xh, b, W_hh, W_hy, b_y; got {len(params)} of shapes {shapes}"
# other weights on other inputs, against the recurrence in NumPy
from course.draws import hidden_rng

rng = hidden_rng("rnn__shapes_and_parameters")  # this submission's own inputs
w = {shape: rng.normal(scale=0.7, size=shape).astype(np.float32) for shape in [(3, 4), (4, 4), (4, 5)]}
T, N = int(rng.integers(3, 9)), int(rng.integers(2, 6))
x_other = rng.normal(size=(T, N, 3)).astype(np.float32)
h_t, h_expected = np.zeros((N, 4), np.float32), []
for x_t in x_other:
    h_t = np.tanh(x_t @ w[(3, 4)] + h_t @ w[(4, 4)])
    h_expected.append(h_t)
y_expected = np.stack(h_expected) @ w[(4, 5)]
h_start = np.full((1, N, 4), rng.uniform(0.1, 0.5), dtype=np.float32)
model = RNN(3, 4, 5)
for q in model.parameters:
    q.data[...] = w.get(q.shape, 0)
y, h = model(x_other.copy())
assert np.allclose(h.data, np.stack(h_expected), atol=1e-4), \
    "with the weights set here (biases zero), on another batch, the states differ from h_t = tanh(x_t W_xh + h_(t-1) W_hh)"
assert np.allclose(y.data, y_expected, atol=1e-4), \
    "with the weights set here (biases zero), the scores differ from y_t = h_t W_hy at every step t: each step's " \
    "scores come from that step's state"
model = RNN(3, 4, 5)
h0 = mg.tensor(h_start)
y, h = model(mg.tensor(x_other), h0)
assert y.dtype == np.float32 and h.dtype == np.float32, \
    f"with a float32 tensor as h_0 the outputs are {y.dtype} and {h.dtype}, expected float32"
(y.sum() + h.sum()).backward()
params = model.parameters
for p in params:
    assert p.grad is not None and np.any(p.grad != 0), f"no gradient reaches the parameter of shape {p.shape}"
assert h0.grad is not None and np.any(h0.grad != 0), "the initial state must feed the first step"
### END HIDDEN TESTS

# %% course={"task": "rnn"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "rnn__matches_numpy", "locked": true, "points": 2, "schema_version": 3, "solution": false}
# Check that RNN computes the same scores and states as a NumPy version of the recurrence
def random_weights(rng, C=3, D=4, K=5):
    # random numbers for the five parameters, by their role
    shapes = {"W_xh": (C, D), "W_hh": (D, D), "b": (D,), "W_hy": (D, K), "b_y": (K,)}
    return {name: rng.normal(scale=0.7, size=shape).astype(np.float32) for name, shape in shapes.items()}


def load_weights(model, w):
    # put the weights w into the model's parameters, each found by its shape (a bias held twice is split in two);
    # a bias the model does not list keeps the model's own value
    (C, D), K = w["W_xh"].shape, w["b_y"].size
    roles = {(C, D): "W_xh", (D, D): "W_hh", (D, K): "W_hy"}
    params = model.parameters
    for name in ["W_xh", "W_hh", "W_hy"]:
        assert w[name].shape in [p.shape for p in params], f"no parameter of the shape of {name}"
    for p in params:
        if p.shape in roles:
            p.data[...] = w[roles[p.shape]]
    for name, size in [("b", D), ("b_y", K)]:
        biases = [p for p in params if p.shape not in roles and p.size == size]
        for p in biases:
            p.data[...] = (w[name] / len(biases)).reshape(p.shape)


def numpy_rnn(x, h0, W_xh, W_hh, b, W_hy, b_y):
    h_t, states = h0[0], []
    for x_t in x:
        h_t = np.tanh(x_t @ W_xh + h_t @ W_hh + b)
        states.append(h_t)
    states = np.stack(states)
    return states @ W_hy + b_y, states


rng = np.random.default_rng(1)
w = random_weights(rng)
x = rng.normal(size=(5, 3, 3)).astype(np.float32)  # T = 5, N = 3, C = 3
h0 = rng.normal(size=(1, 3, 4)).astype(np.float32)
y_ref, h_ref = numpy_rnn(x, np.zeros((1, 3, 4), np.float32), **w)  # starting from zeros
y0_ref, h0_ref = numpy_rnn(x, h0, **w)  # starting from h0

model = RNN(3, 4, 5)
load_weights(model, w)
y, h = model(x.copy())
assert y.shape == (5, 3, 5) and h.shape == (5, 3, 4), \
    f"scores and states have shapes {y.shape} and {h.shape}, expected (T, N, K) = (5, 3, 5) and (T, N, D) = (5, 3, 4)"
assert np.allclose(h.data, h_ref, atol=1e-5), \
    "the states h_1..h_T differ from tanh(x_t W_xh + h_(t-1) W_hh + b) on the weights this test loaded through " \
    "parameters (all five must be listed there)"
assert np.allclose(y.data, y_ref, atol=1e-5), "the scores differ from h_t W_hy + b_y"

y, h = model(x.copy(), h0.copy())
assert y.shape == (5, 3, 5) and h.shape == (5, 3, 4), \
    f"with a given h_0, scores and states have shapes {y.shape} and {h.shape}, expected (5, 3, 5) and (5, 3, 4)"
assert np.allclose(h.data, h0_ref, atol=1e-5), "with a given h_0, the states are wrong: does h_0 feed step 1?"
assert np.allclose(y.data, y0_ref, atol=1e-5), "with a given h_0, the scores differ from h_t W_hy + b_y"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("rnn__matches_numpy")  # this submission's own inputs
w = random_weights(rng)
T, N = int(rng.integers(6, 13)), int(rng.integers(3, 10))
x = np.eye(3, dtype=np.float32)[rng.integers(0, 3, size=(T, N))]  # one-hot
h0 = rng.normal(size=(1, N, 4)).astype(np.float32)
y_ref, h_ref = numpy_rnn(x, h0, **w)
h1_ref = numpy_rnn(x[:1], np.zeros((1, N, 4), np.float32), **w)[1]  # T = 1, from zeros
shapes_wanted, all_steps, one_step = [(T, N, 5), (T, N, 4)], (T, N, 5), (1, N, 4)
model = RNN(3, 4, 5)
load_weights(model, w)
y, h = model(mg.tensor(x), mg.tensor(h0))
assert [y.shape, h.shape] == shapes_wanted, \
    f"on a one-hot batch with a given h_0, scores and states have shapes {y.shape} and {h.shape}, expected (T, N, K) and (T, N, D)"
assert np.allclose(h.data, h_ref, atol=1e-5) and np.allclose(y.data, y_ref, atol=1e-5), \
    "on a one-hot batch with a given h_0, the states or scores differ from the NumPy recurrence"
# one step at a time, passing the state along, gives the same result
state, ys = mg.tensor(h0), []
for t in range(len(x)):
    y_t, h_t = model(x[t : t + 1], state)
    state = h_t[-1:]
    ys.append(y_t.data)
assert np.shape(np.concatenate(ys)) == all_steps, \
    f"one step at a time, the scores of the steps join to shape {np.shape(np.concatenate(ys))}, expected (T, N, K)"
assert np.allclose(np.concatenate(ys), y_ref, atol=1e-5), \
    "one step at a time, passing the last state along, must give the same scores as one call over all T steps"
y, h = model(x[:1])
assert h.shape == one_step, f"with a single step the states have shape {h.shape}, expected (T, N, D)"
assert np.allclose(h.data, h1_ref, atol=1e-5), \
    "with a single step and no h_0 given, the state must be tanh(x_t W_xh + b): h_0 is zeros"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "loss_and_accuracy_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part C: loss and whole-sequence accuracy (2 points)
#
# The loss is the cross-entropy averaged over all $T N$ tokens, with $p_{t,n} = \operatorname{softmax}(y_{t,n})$:
#
# $$
# \mathcal{L} = -\frac{1}{T N} \sum_{t=1}^{T} \sum_{n=1}^{N} \log p_{t,n}\big[\text{target}_{t,n}\big].
# $$
#
# MyGrad's `softmax_crossentropy` wants scores of shape $(M, K)$ and labels of shape $(M,)$: merge the time
# and batch axes with a `reshape`, which keeps each score row next to its own label.
#
# A reversal is only right when every token is right, so the accuracy counts whole sequences (*exact-match*
# accuracy):
#
# $$
# \text{accuracy} = \frac{1}{N} \sum_{n=1}^{N} \prod_{t=1}^{T} \Big[\operatorname*{arg\,max}_k\, y_{t,n,k} = \text{target}_{t,n}\Big].
# $$
#
# Complete `loss_and_accuracy`; return the loss as a tensor (we backpropagate through it) and the accuracy as a Python float.

# %% nbgrader={"grade": false, "grade_id": "loss_and_accuracy", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
def loss_and_accuracy(scores, target):
    """Cross-entropy over all tokens, and the fraction of sequences predicted without a single error.

    Parameters
    ----------
    scores : Union[numpy.ndarray, mygrad.Tensor], shape=(T, N, K)
        The scores of the K classes at every step.
    target : numpy.ndarray, shape=(T, N)
        The right class at every step.

    Returns
    -------
    loss : mygrad.Tensor, shape=()
        The mean cross-entropy over the T * N tokens.
    accuracy : float
        The fraction of the N sequences whose T predictions (arg-max scores) are all right.
    """
    ### BEGIN SOLUTION
    K = scores.shape[-1]
    loss = softmax_crossentropy(scores.reshape(-1, K), target.reshape(-1))

    predictions = np.argmax(mg.asarray(scores), axis=-1)  # (T, N)
    all_right = np.all(predictions == target, axis=0)  # (N,): every step of sequence n is right
    accuracy = float(np.mean(all_right))
    return loss, accuracy
    ### END SOLUTION


# %%
# Try it: an untrained model guesses, so its accuracy is near 0 and its loss near log(12) = 2.48.
# Expect a loss of about 2.5 to 2.7 and accuracy 0: the order in which you create the layers decides
# their random weights (and the batch drawn after them). The reference solution prints `loss 2.678, accuracy 0.000`,
# a little above log(12), because the untrained scores are not all equal, and uneven guesses cost
# more on average than a uniform one.
np.random.seed(0)
rnn_demo = RNN(12, 16, 12)
x_demo, target_demo, _ = generate_batch(5, 5, 50)
loss_demo, accuracy_demo = loss_and_accuracy(rnn_demo(x_demo)[0], target_demo)
print(f"loss {loss_demo.item():.3f}, accuracy {accuracy_demo:.3f}")

# %% course={"task": "loss_and_accuracy"} nbgrader={"grade": true, "grade_id": "loss_and_accuracy__loss_matches_numpy", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that the loss is the mean cross-entropy over all T * N tokens, and that it can be backpropagated
rng = np.random.default_rng(0)
scores_np = rng.normal(size=(3, 4, 5)).astype(np.float32)  # T = 3, N = 4, K = 5
target = rng.integers(0, 5, size=(3, 4))
shifted = scores_np - scores_np.max(axis=-1, keepdims=True)
log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
onehot = np.eye(5, dtype=np.float32)[target]
expected = -(log_p * onehot).sum(axis=-1).mean()
scores = mg.tensor(scores_np)
try:
    loss, acc = loss_and_accuracy(scores, target)
    error = None
except ValueError as err:  # e.g. predictions of another shape than the target
    error = str(err)
assert error is None, f"loss_and_accuracy raised ValueError({error!r}) on scores of shape (T, N, K) = (3, 4, 5): " \
    "take the arg-max over the classes (axis -1), giving (T, N) predictions like the target"
assert isinstance(loss, mg.Tensor), "return the loss as a MyGrad tensor, so that it can be backpropagated"
assert loss.ndim == 0, f"the loss must be a scalar, got shape {loss.shape}"
assert np.isclose(loss.item(), expected, atol=1e-5), \
    f"loss {loss.item():.5f}, expected {expected:.5f}: the mean cross-entropy over all T * N tokens, each score row " \
    "with its own label (reshape the scores to (T N, K) and the target to (T N,) in the same order)"
loss.backward()
assert scores.grad is not None and scores.grad.shape == (3, 4, 5), "no gradient reaches the scores"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("loss_and_accuracy__loss_matches_numpy")  # this submission's own inputs
T, N, K = int(rng.integers(2, 8)), int(rng.integers(2, 6)), int(rng.integers(3, 9))
scores_np = rng.normal(size=(T, N, K)).astype(np.float32)
target = rng.integers(0, K, size=(T, N))
shifted = scores_np - scores_np.max(axis=-1, keepdims=True)
log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
expected = -np.take_along_axis(log_p, target[..., None], axis=-1).mean()
grad_expected, grad_shape = (np.exp(log_p) - np.eye(K)[target]) / (T * N), (T, N, K)
scores = mg.tensor(scores_np)
loss, acc = loss_and_accuracy(scores, target.copy())
assert np.shape(loss) == (), f"on another batch the loss must be a scalar, got shape {np.shape(loss)}"
assert np.isclose(loss.item(), expected, atol=1e-5), \
    "on another batch the loss differs from the mean cross-entropy over all T N tokens"
loss.backward()
grad = scores.grad
assert np.shape(grad) == grad_shape, f"the gradient of the scores has shape {np.shape(grad)}, expected the scores' own shape (T, N, K)"
assert np.allclose(grad, grad_expected, atol=1e-5), \
    "the gradient differs from (softmax - one-hot) / (T N): is the loss the mean over all T N tokens?"
### END HIDDEN TESTS

# %% course={"task": "loss_and_accuracy"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "loss_and_accuracy__whole_sequence_accuracy", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that the accuracy counts whole sequences: one wrong token makes its sequence wrong
target = np.array([[1, 2, 3, 4], [0, 0, 1, 1], [4, 3, 2, 1]])  # T = 3, N = 4, K = 5
scores = np.eye(5, dtype=np.float32)[target]  # every prediction right
loss, acc = loss_and_accuracy(mg.tensor(scores), target)
assert isinstance(acc, float), f"return the accuracy as a Python float, not {type(acc)}"
assert acc == 1.0, f"all predictions are right, but accuracy = {acc}"
scores[0, 1] = np.eye(5)[0]  # sequence 1 goes wrong at t = 1
scores[2, 1] = np.eye(5)[0]  # ... and at t = 3
scores[1, 2] = np.eye(5)[4]  # sequence 2 goes wrong at t = 2
loss, acc = loss_and_accuracy(mg.tensor(scores), target)
assert isinstance(acc, float), f"return the accuracy as a Python float, not {type(acc)}"
assert np.isclose(acc, 0.5), \
    f"sequences 0 and 3 are right, 1 and 2 are not: expected 0.5, got {acc}; count whole sequences, not tokens " \
    "(np.all over the time axis, axis 0)"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("loss_and_accuracy__whole_sequence_accuracy")  # this submission's own inputs
T, N, K = int(rng.integers(3, 9)), int(rng.integers(10, 41)), int(rng.integers(3, 9))
target = rng.integers(0, K, size=(T, N))
scores = np.eye(K, dtype=np.float32)[target] + 0.1 * rng.random((T, N, K)).astype(np.float32)
wrong = rng.choice(N, size=int(rng.integers(1, N)), replace=False)  # some sequences, never none or all
scores[rng.integers(0, T, size=len(wrong)), wrong] *= -1  # flip one step of each
right_share = 1 - len(wrong) / N
all_wrong = -np.eye(K, dtype=np.float32)[target]
loss, acc = loss_and_accuracy(mg.tensor(scores), target.copy())
assert isinstance(acc, float), f"return the accuracy as a Python float, not {type(acc)}"
assert np.isclose(acc, right_share), "on a batch where some sequences have a single wrong step, the accuracy is wrong: a sequence counts as right only " \
    "when every one of its steps is right (np.all over the time axis, then the mean over the sequences)"
loss, acc = loss_and_accuracy(mg.tensor(all_wrong), target.copy())
assert isinstance(acc, float), f"return the accuracy as a Python float, not {type(acc)}"
assert acc == 0.0, "when every prediction is wrong, the accuracy is not zero: compare the arg-max of the scores with the target"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "accuracy_by_length_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part D: accuracy for every length (2 points)
#
# One number for all lengths hides the interesting part. For each length $L = L_\min, \dots, L_\max$,
# draw one batch of `n_per_length` sequences with exactly $L$ digits (`generate_batch(L, L, n_per_length)`),
# predict with `predict(x)`, which maps a $(T, N, C)$ batch to $(T, N, K)$ scores (a tensor or an array),
# and record the whole-sequence accuracy. No gradients are needed, so work inside `with mg.no_autodiff:`.
#
# Complete `accuracy_by_length`. To evaluate an RNN `model`, pass `lambda x: model(x)[0]`.

# %% nbgrader={"grade": false, "grade_id": "accuracy_by_length", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
def accuracy_by_length(predict, seq_len_min=1, seq_len_max=20, n_per_length=1000):
    """Whole-sequence accuracy of a predictor for each number of digits.

    Parameters
    ----------
    predict : Callable[[numpy.ndarray], Union[numpy.ndarray, mygrad.Tensor]]
        Maps one-hot inputs of shape (T, N, C) to scores of shape (T, N, K).
    seq_len_min : int, default=1
        The shortest length evaluated (digits, without the end token).
    seq_len_max : int, default=20
        The longest length evaluated (inclusive).
    n_per_length : int, default=1000
        The number of sequences drawn for each length.

    Returns
    -------
    numpy.ndarray, shape=(seq_len_max - seq_len_min + 1,), dtype=float
        Entry i is the accuracy on sequences of seq_len_min + i digits.
    """
    ### BEGIN SOLUTION
    lengths = range(seq_len_min, seq_len_max + 1)
    accuracies = np.zeros(len(lengths))
    with mg.no_autodiff:
        for i, length in enumerate(lengths):
            x, target, _ = generate_batch(length, length, n_per_length)
            predictions = np.argmax(mg.asarray(predict(x)), axis=-1)  # (T, N)
            accuracies[i] = np.mean(np.all(predictions == target, axis=0))
    return accuracies
    ### END SOLUTION


# %%
# Try it with a predictor that cheats: it reads the digits backwards from its input.
def reverse_perfectly(x):
    return np.concatenate([x[-2::-1], x[-1:]])  # reversed digits, then the end token


np.random.seed(0)
print(accuracy_by_length(reverse_perfectly, 1, 5, n_per_length=10))  # five ones


# %% course={"task": "accuracy_by_length"} nbgrader={"grade": true, "grade_id": "accuracy_by_length__one_batch_per_length", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that accuracy_by_length evaluates one batch of each length, min and max included
# accuracy_by_length draws its batches with your generate_batch: first, that it gives what the oracles below invert
from course.checks import reverses_digits

x_drawn, target_drawn, digits_drawn = generate_batch(3, 3, 4)
drawn_shapes = [np.shape(x_drawn), np.shape(target_drawn), np.shape(digits_drawn)]
assert reverses_digits(drawn_shapes, x_drawn, target_drawn, digits_drawn), (
    "accuracy_by_length draws its batches with your generate_batch, which fails here (shapes, the one-hot input, "
    "the reversed target or the end token): fix generate_batch (Part A) first"
)
def oracle(x):
    # scores that are exactly the one-hot target: the digits backwards, then the end token
    return np.concatenate([x[-2::-1], x[-1:]])


seen = []


def recording_oracle(x):
    seen.append(x.shape)
    return oracle(x)


np.random.seed(0)
try:
    acc = accuracy_by_length(recording_oracle, 2, 6, n_per_length=20)
    error = None
except ValueError as err:  # e.g. predictions of another shape than the target
    error = str(err)
assert error is None, f"accuracy_by_length raised ValueError({error!r}): take the arg-max over the classes " \
    "(axis -1), giving (T, N) predictions like the target"
assert isinstance(acc, np.ndarray), f"return a NumPy array, not {type(acc)}"
assert acc.shape == (5,), f"lengths 2..6 give 5 accuracies, got shape {acc.shape}: seq_len_max is included"
assert seen == [(L + 1, 20, 12) for L in range(2, 7)], \
    f"predict was called on batches of shapes {seen}; expected one batch of each length L = 2..6, " \
    "generate_batch(L, L, n_per_length), whose T is L + 1"
assert np.allclose(acc, 1.0), f"a perfect predictor scores 1 at every length, got {acc}"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("accuracy_by_length__one_batch_per_length")  # this submission's own inputs
n, L = int(rng.integers(2, 6)), int(rng.integers(2, 9))
batches_wanted = [(length + 1, n, 12) for length in range(1, 21)]
seen.clear()
acc = accuracy_by_length(recording_oracle, n_per_length=n)
assert seen == batches_wanted, \
    "with the default lengths, predict must see one batch for each length from seq_len_min to seq_len_max, in order"
assert acc.shape == (20,) and np.allclose(acc, 1.0), "with the default lengths, a perfect predictor must score 1 at every length"
acc = accuracy_by_length(lambda x: mg.tensor(oracle(x)), L, L, n_per_length=n + 1)
assert acc.shape == (1,) and np.allclose(acc, 1.0), "predict may return a MyGrad tensor"
### END HIDDEN TESTS

# %% course={"task": "accuracy_by_length"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "accuracy_by_length__whole_sequences", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that accuracy_by_length counts whole sequences and keeps the lengths apart
# accuracy_by_length draws its batches with your generate_batch: first, that it gives what the oracles below invert
from course.checks import reverses_digits

x_drawn, target_drawn, digits_drawn = generate_batch(3, 3, 4)
drawn_shapes = [np.shape(x_drawn), np.shape(target_drawn), np.shape(digits_drawn)]
assert reverses_digits(drawn_shapes, x_drawn, target_drawn, digits_drawn), (
    "accuracy_by_length draws its batches with your generate_batch, which fails here (shapes, the one-hot input, "
    "the reversed target or the end token): fix generate_batch (Part A) first"
)
def oracle(x):
    return np.concatenate([x[-2::-1], x[-1:]])


def digits_wrong(x):
    # right end token, every digit off by one: no sequence is right
    scores = oracle(x)
    scores[:-1] = np.roll(scores[:-1], 1, axis=-1)
    return scores


def first_sequence_wrong(x):
    scores = oracle(x)
    scores[0, 0] = np.roll(scores[0, 0], 1)
    return scores


np.random.seed(1)
acc = accuracy_by_length(digits_wrong, 1, 4, n_per_length=10)
assert np.shape(acc) == (4,), f"lengths 1..4 give 4 accuracies, got shape {np.shape(acc)}"
assert np.allclose(acc, 0.0), \
    f"every sequence has wrong digits, so every accuracy is 0; got {acc}: count whole sequences, not tokens"
acc = accuracy_by_length(first_sequence_wrong, 1, 4, n_per_length=10)
assert np.shape(acc) == (4,), f"lengths 1..4 give 4 accuracies, got shape {np.shape(acc)}"
assert np.allclose(acc, 0.9), f"one sequence in ten is wrong at every length: expected 0.9, got {acc}"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("accuracy_by_length__whole_sequences")  # this submission's own inputs
low = int(rng.integers(1, 5))
high = low + int(rng.integers(4, 9))
right_at = {int(L) for L in rng.choice(np.arange(low, high + 1), size=(high - low + 1) // 2, replace=False)}
by_length, count = [float(L in right_at) for L in range(low, high + 1)], (high - low + 1,)


def right_at_some_lengths(x):
    # right on sequences of the lengths in right_at only
    return oracle(x) if x.shape[0] - 1 in right_at else digits_wrong(x)


acc = accuracy_by_length(right_at_some_lengths, low, high, n_per_length=4)
assert np.shape(acc) == count, f"one accuracy per length from seq_len_min to seq_len_max, both included; got shape {np.shape(acc)}"
assert np.allclose(acc, by_length), \
    "a predictor that is right at some lengths only gets the accuracies of other lengths: keep each length's " \
    "accuracy in its own place, in the order of the lengths"
L, n = int(rng.integers(2, 9)), int(rng.integers(3, 9))
one_wrong = 1 - 1 / n
acc = accuracy_by_length(lambda x: mg.tensor(first_sequence_wrong(x)), L, L + 1, n_per_length=n)
assert np.shape(acc) == (2,), f"one accuracy per length, both ends included; got shape {np.shape(acc)}"
assert np.allclose(acc, one_wrong), "when one sequence of each batch is wrong, the accuracies are wrong: count whole sequences, and predict may " \
    "return a MyGrad tensor"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "training_text", "locked": true, "schema_version": 3, "solution": false}
# ## Training
#
# Now train an RNN with the settings of `SETTINGS` below: a state of $D = 100$ entries, batches of $N = 100$
# sequences of 1 to 20 digits, Adam with its default settings. The plot follows the loss and the
# whole-sequence accuracy of each batch, and their mean over every 100 batches. All sequences of a batch
# have the same length, so the batch accuracy jumps to 1 whenever a batch of one-digit sequences comes along.
# Training runs inside `mg.mem_guard_off`, which skips MyGrad's memory guarding and makes each step much faster.
#
# The notebook runs in one of two modes: *full mode*, your own run, with the numbers in `SETTINGS`, and *quick
# mode*, the short run the grader uses (or `COURSE_QUICK=1`), where `pick(full=..., quick=...)` takes the small
# number so that every cell ends in seconds.
#
# The cell prints a progress line every 30 s (steps done, time per step, time left) and its whole time at the
# end. The 3000 steps take well under a minute on a laptop, and a little longer on a machine that other work keeps busy.
# To try other settings, change them in `SETTINGS`, the one cell the training reads.

# %% nbgrader={"grade": false, "grade_id": "settings", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
# The training settings, in one place: the training cell below reads them.
SETTINGS = {
    "dim_recurrent": 100,  # D, the size of the hidden state
    "batch_size": 100,  # N, sequences per step
    "seq_len_min": 1,  # the fewest digits of a training sequence
    "seq_len_max": 20,  # the most digits of a training sequence
    "learning_rate": 1e-3,  # Adam's rate (its default)
    "n_steps": 3000,  # training steps in full mode
}

# %% [markdown] nbgrader={"grade": false, "grade_id": "fused_text", "locked": true, "schema_version": 3, "solution": false}
# **Training on a fused operation.** Your `RNN.__call__` makes a few MyGrad operations at every time step, and
# each keeps its arrays for the backward pass. `course.ops.tanh_rnn` computes all $T$ states as one operation,
# with its backward pass, backpropagation through time (below), written by hand. The cell below runs it and
# your `__call__` on the same random inputs. If they give the same scores, states and gradients, training runs
# it in place of your `__call__` inside `with fused:`, on your model's own weights: the model learns what your
# loop would teach it, in less time. If not, training runs your own code, and the cell says why. Every cell
# after training, the accuracy by length too, runs your own `__call__`.

# %% nbgrader={"grade": false, "grade_id": "fused", "locked": true, "schema_version": 3, "solution": false}
from course.fused import rnn_training

fused = rnn_training(globals())  # prints what training will run

# %% tags=["slow"]
np.random.seed(0)
model = RNN(dim_input=12, dim_recurrent=SETTINGS["dim_recurrent"], dim_output=12)
optimizer = Adam(model.parameters, learning_rate=SETTINGS["learning_rate"])

n_steps = pick(full=SETTINGS["n_steps"], quick=30)
batch_size = SETTINGS["batch_size"]

plotter, fig, ax = create_plot(["loss", "accuracy"])
with mg.mem_guard_off, fused:  # fused: course.ops.tanh_rnn runs RNN.__call__, if the cell above found it agrees
    for step in progress(n_steps):  # range(n_steps), with a progress line every 30 s
        x, target, _ = generate_batch(SETTINGS["seq_len_min"], SETTINGS["seq_len_max"], batch_size)
        scores, _ = model(x)
        loss, accuracy = loss_and_accuracy(scores, target)
        loss.backward()
        optimizer.step()
        plotter.set_train_batch({"loss": loss.item(), "accuracy": accuracy}, batch_size=batch_size)
        if (step + 1) % 100 == 0:
            plotter.set_train_epoch()  # the mean of the last 100 batches, drawn as a darker line
plotter.plot()

# %% [markdown] nbgrader={"grade": false, "grade_id": "accuracy_by_length_run_text", "locked": true, "schema_version": 3, "solution": false}
# ## Accuracy by length
#
# The batch accuracy above mixes every length. Split it up: how often does the trained RNN reverse
# a sequence of $L$ digits without a single error?

# %% tags=["slow"]
lengths = np.arange(1, 21)
accuracies = accuracy_by_length(lambda x: model(x)[0], 1, 20, n_per_length=pick(full=1000, quick=50))

fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
ax.plot(lengths, accuracies, marker="o")
ax.set_xlabel("number of digits $L = T - 1$")
ax.set_ylabel("whole-sequence accuracy")
ax.set_title("Plain RNN: reversing digit sequences")
ax.set_xticks(lengths)
ax.set_ylim(-0.03, 1.03)
ax.grid(alpha=0.3)
plt.show()

for L, a in zip(lengths, accuracies):
    print(f"L = {L:2d}: {a:.3f}")

# %% [markdown] nbgrader={"grade": false, "grade_id": "why_rnn_fails_question", "locked": true, "schema_version": 3, "solution": false}
# ## Part E: why does it fail? (2 points)
#
# Look at the accuracies printed above. Expect about 1.0 for a single digit, about 0.1 for two digits, and
# close to 0 from three digits on, and training longer does not change that. Explain why in a few sentences.
# Hint: which digits has the RNN read when it must emit the first token of the target?
#
# ### BEGIN MARK SCHEME
#
# **For the grader** (this part is removed from the student version and from the feedback).
#
# *Model answer.* At step $t$ the RNN has read only $x_1, \dots, x_t$, yet it must already output the target token
# $d_{T-t}$, the digit that stands $T - 2t$ places further on in the input. For the first half of the target,
# $t < T/2$, that digit has not been read yet, so the best the network can do is guess it, right one time
# in ten. A sequence of $L$ digits has $\lfloor L/2 \rfloor$ such positions, so even a perfect RNN gets the
# whole sequence right with probability at most $10^{-\lfloor L/2 \rfloor}$: 1 for $L = 1$ (the digit is
# read at the step that must write it), 0.1 for $L = 2, 3$, 0.01 for $L = 4, 5$, and so on. Our RNN does even
# worse from $L = 3$ on (close to 0 where the bound is 0.1), because it is trained on every length from 1 to 20
# and does not know the length until it reads the end marker, the last input: at step $t$ the digit due,
# $d_{T-t}$, depends on $T$, so even a digit it has read may not be the one to write. (The ambiguity starts at
# $L = 2$, where step 2 may owe $d_1$ or $d_2$; the trained net favours the shorter length, so $L = 2$ still
# reaches about 0.1.)
#
# More training or a larger $D$ cannot help: the state only carries information forward in time, and the
# model is forced to answer before the information arrives. It has to read the whole input before writing
# anything, which is what an encoder followed by a decoder does.
#
# *Rubric (2 points).*
#
# - 1 point: at step $t$ the RNN has read only $x_1, \dots, x_t$ but must already write $d_{T-t}$, a digit it
#   has not read yet for the first half of the target, so there it can only guess (one time in ten).
# - 1 point: either that this is a limit of the architecture, not of training (more steps or a larger $D$ cannot
#   help), or the remedy, reading the whole input before writing (an encoder, then a decoder): either earns it.
#   The bound $10^{-\lfloor L/2 \rfloor}$ is welcome but not required. So is the reason it falls below that bound from
#   $L = 3$ on: which digit is due depends on the length, which it learns only at the end marker.
# - No point for "vanishing gradients" or "too small a model" alone: they do not explain why one digit is always
#   right and two almost never.
#
# ### END MARK SCHEME

# %% [markdown] nbgrader={"grade": true, "grade_id": "why_rnn_fails", "locked": false, "points": 2, "schema_version": 3, "solution": true}
# The model answer and the rubric are in the mark scheme of the question above.

# %% [markdown] nbgrader={"grade": false, "grade_id": "bptt_text", "locked": true, "schema_version": 3, "solution": false}
# ## Backpropagation through time
#
# `loss.backward()` in the training loop runs the chain rule backwards through the unrolled RNN of Part B's
# figure, from the last step to the first: *backpropagation through time* (BPTT; Werbos, 1990). Take the loss
# $\mathcal{L}_s$ of a single step $s$ and write $g_t = \partial \mathcal{L}_s / \partial h_t$, a row like $h_t$.
# For $t < s$ the loss depends on $h_t$ only through $h_{t+1} = \tanh(x_{t+1} W_{xh} + h_t W_{hh} + b)$, so
#
# $$
# g_t = g_{t+1}\, \frac{\partial h_{t+1}}{\partial h_t} = \big(g_{t+1} \odot (1 - h_{t+1}^2)\big)\, W_{hh}^{\top},
# \qquad t = s - 1, \dots, 1,
# $$
#
# starting from $g_s = (\partial \mathcal{L}_s / \partial y_s)\, W_{hy}^{\top}$ at the step that writes.
# Each step back multiplies the gradient by one step's Jacobian: tanh's slope $1 - h_{t+1}^2$, at most 1, then
# the same $W_{hh}^{\top}$ every time. What reaches $h_1$ is a product of $s - 1$ such factors. If they shrink
# the vector, it shrinks roughly geometrically with the distance: a *vanishing gradient*. If they stretch it, it
# grows the same way: an *exploding gradient*. The weights get their gradients as sums over the steps, each term
# scaled by $g_t$, so where the gradient has vanished, the early inputs add almost nothing to what they learn from
# $\mathcal{L}_s$. (The training loss is the mean of every step's loss: its gradient at $h_t$ is the sum of such
# chains, one from each later step, plus step $t$'s own term.)

# %% [markdown] nbgrader={"grade": false, "grade_id": "bptt_measure_text", "locked": true, "schema_version": 3, "solution": false}
# Measure it on your own RNN. The last step writes `<E>`, which it reads at that same step; the step before,
# $s = T - 1$, writes $d_1$, the first digit read, the longest reach in the task. The cell below runs an RNN one
# step at a time on 100 sequences of 20 digits (your `RNN` goes on from the state you pass it), keeps each state
# $h_t$ as a tensor of its own, backpropagates $\mathcal{L}_{T-1}$ alone and plots the norm of every `h.grad`,
# on a log scale, for a new, untrained RNN and for your trained `model`.

# %% tags=["slow"]
# The gradient of the last digit's loss (step T - 1, which writes d_1) with respect to every earlier state h_t
def state_gradient_norms(rnn, x, target):
    state, states = None, []
    for t in range(x.shape[0] - 1):  # steps 1..T-1, one call each, so that each h_t is a tensor of its own
        scores_t, state = rnn(x[t : t + 1], state)
        states.append(state)
    loss = softmax_crossentropy(scores_t[0], target[-2])  # step T - 1's scores against d_1
    loss.backward()
    return np.array([np.linalg.norm(h.grad) for h in states])  # |g_t| for t = 1..T-1


np.random.seed(1)
x, target, _ = generate_batch(20, 20, 100)
untrained = RNN(dim_input=12, dim_recurrent=SETTINGS["dim_recurrent"], dim_output=12)
norms = {
    "untrained RNN": state_gradient_norms(untrained, x, target),
    "your trained RNN": state_gradient_norms(model, x, target),
}

steps = np.arange(1, x.shape[0])  # t = 1..T-1
fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
for label, g in norms.items():
    ax.semilogy(steps, g, marker="o", label=label)
ax.set_xlabel("step $t$ of the state $h_t$ (20 digits)")
ax.set_ylabel(r"$\|\partial \mathcal{L}_{T-1} / \partial h_t\|$")
ax.set_title("How far back the last digit's loss reaches")
ax.set_xticks(steps)
ax.grid(alpha=0.3, which="both")
ax.legend()
plt.show()

for label, g in norms.items():
    print(f"{label}: |g_1| / |g_(T-1)| = {g[0] / g[-1]:.2f}, smallest at t = {g.argmin() + 1}")

# %% [markdown] nbgrader={"grade": false, "grade_id": "bptt_reading_text", "locked": true, "schema_version": 3, "solution": false}
# The untrained RNN's line falls at almost every step back, from right to left, close to a straight line on the log
# scale: a vanishing gradient, shrinking by a similar factor at each step. At the start of training, then, the loss
# of $d_1$ (written at step $T-1$) gives $h_1$, the state that has just read $d_1$, a gradient a few times weaker than
# it gives $h_{T-1}$ (the printed ratio $|g_1|/|g_{T-1}|$), and the near past gets the stronger push.
#
# Your trained RNN's line does not fade like that: it dips in the middle and climbs again towards $t = 1$. Training
# has changed $W_{hh}$: near the start, where the states are still small and tanh's slope is close to 1, the factors
# now stretch the gradient (the exploding side); further on, with larger states and a smaller slope, they shrink it.
# So over 20 steps a vanishing gradient is not what holds this RNN back: the reason is the one Part E asks for. In
# general, though, a product of many factors seldom stays near 1: over long spans the gradient vanishes or
# explodes, which is what makes long dependencies hard for a plain RNN to learn (Bengio, Simard and Frasconi, 1994).

# %% [markdown] nbgrader={"grade": false, "grade_id": "bptt_remedies_text", "locked": true, "schema_version": 3, "solution": false}
# Two remedies have names. Against exploding gradients, *gradient clipping* (Pascanu, Mikolov and Bengio, 2013):
# whenever the norm of all the gradients together exceeds a threshold, scale them down to it before the optimizer's
# step. Against vanishing ones, *gating*: the LSTM (Hochreiter and Schmidhuber, 1997, with the forget gate of Gers
# et al., 2000) and the GRU (Cho et al., 2014) let a learned gate copy the
# state forward, and along that copy the gradient is multiplied by the gate's value, close to 1 when the gate keeps
# the state, instead of by tanh's slope and $W_{hh}^{\top}$. The GRU (gated recurrent unit), with $\sigma$ the
# logistic sigmoid and $\odot$ the entrywise product:
#
# $$
# \begin{aligned}
# r_t &= \sigma\big(x_t W_{xr} + h_{t-1} W_{hr} + b_r\big) && \text{reset gate,} \\
# z_t &= \sigma\big(x_t W_{xz} + h_{t-1} W_{hz} + b_z\big) && \text{update gate,} \\
# \tilde h_t &= \tanh\big(x_t W_{xh} + (r_t \odot h_{t-1}) W_{hh} + b\big) && \text{candidate state,} \\
# h_t &= z_t \odot h_{t-1} + (1 - z_t) \odot \tilde h_t .
# \end{aligned}
# $$
#
# Where $z_t$ is close to 1, the old state passes on unchanged; where $r_t$ is close to 0, the candidate ignores it.
# With $z_t = 0$ and $r_t = 1$ it is Part B's cell.

# %% [markdown] nbgrader={"grade": false, "grade_id": "gru_try_it_text", "locked": true, "schema_version": 3, "solution": false}
# **Try it (not graded): a GRU.** In a copy of the `RNN` cell, write a class `GRU` with the same interface:
#
# - in `__init__`, add for each gate an input layer (with its bias) and a recurrent one (`bias=False`), all with
#   `weight_initializer=glorot_normal`;
# - in `__call__`, apply the three input layers to all $T$ steps at once before the loop, as before, and compute
#   $r_t$, $z_t$, $\tilde h_t$ and $h_t$ inside it (`sigmoid` is in `mygrad.nnet`);
# - list all eleven tensors in `parameters`.
#
# Train it with a copy of the training cell (`model = GRU(...)`; slower, since each time step multiplies by three
# matrices where the RNN multiplies by one), then run the gradient cell and `accuracy_by_length` on it. Which
# changes: the gradient's line in the figure, or the accuracy beyond two digits? Why (think of Part E)?

# %% [markdown] nbgrader={"grade": false, "grade_id": "exercises_text", "locked": true, "schema_version": 3, "solution": false}
# ## Exercises
#
# These are not graded. Each asks you to change something and measure; make the change in a copy of the
# cell, so that the graded cells above keep their code.
#
# 1. Train on sequences of exactly two digits (`seq_len_min = seq_len_max = 2` in `SETTINGS`). Before you run
#    it, use your answer to Part E to predict the accuracy; then measure it with `accuracy_by_length`.
# 2. Change the task to copying: the target is the digits in their own order, then `<E>`. Train and measure
#    the accuracy for every length. Why can a plain RNN learn this one at every length, when it could not learn
#    the reversal?
# 3. Double $D$ to 200. Which changes more: the time a training step takes (time it) or the accuracy by length?
# 4. How many learnable numbers does `RNN` hold? Write the count in terms of $C$, $D$ and $K$, then check it
#    against `sum(p.size for p in model.parameters)` for the trained model.
# 5. Give the network time to read: feed the digits, then as many extra `<E>` steps as there are digits, and
#    ask for the reversal only on those extra steps. Could a plain RNN solve the task now, in principle?
#    Try it, and compare the accuracy by length with the plot above.
# 6. Replace `mg.tanh` with `relu` (from `mygrad.nnet`) in the cell and train again. What happens to the loss curve, to the
#    size of the states (print `abs(h).max()` for a batch) and to the gradient's line in the figure of
#    backpropagation through time?

# %% [markdown] nbgrader={"grade": false, "grade_id": "recap_text", "locked": true, "schema_version": 3, "solution": false}
# ## Recap
#
# - `generate_batch` makes the reversal task: one-hot digits closed by `<E>`, and the reversed digits as target.
# - `RNN` runs $h_t = \tanh(x_t W_{xh} + h_{t-1} W_{hh} + b)$ over time with one matrix product per step,
#   and reads scores $y_t = h_t W_{hy} + b_y$ from all states at once.
# - `loss_and_accuracy` and `accuracy_by_length` measure success the strict way: a sequence counts only if all of it is right.
# - A plain RNN reverses one digit but almost never more, however long it trains; Part E asks why.
# - Backpropagation through time multiplies the gradient by one Jacobian per step back, so it vanishes or explodes
#   over long spans; clipping tames the explosion, and gated cells such as the GRU keep a path where it survives.
#
# The next notebook builds **Seq2Seq**: an *encoder* RNN first reads the whole sequence into its
# final state, and a *decoder* RNN, started from that state and a `<S>` token, then writes the reversal.
# It reuses `generate_batch` and `RNN` from this notebook.
