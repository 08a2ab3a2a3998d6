# %% [markdown] nbgrader={"grade": false, "grade_id": "intro_text", "locked": true, "schema_version": 3, "solution": false}
# # Attention: the decoder looks back
#
# In notebook 02 the decoder learned about the source only through one vector, the encoder's last state
# $h^e_T$. Short sequences fit into it; long ones did not, and the accuracy fell with the length.
# Attention lets the decoder consult *every* encoder state at *every* step, and pick the ones it needs.
#
# In this notebook, we:
#
# - score each encoder state against the decoder's current state and turn the scores into weights with a softmax;
# - summarise the encoder states in a **context vector**, their weighted average, and let every prediction use it;
# - train the attention model and check that it reverses sequences of all lengths from 1 to 20;
# - draw the attention weights and read the reversal straight off the picture.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
import numpy as np
import mygrad as mg
import matplotlib.pyplot as plt

from course.layers import dense  # MyNN's dense layer (the course's faster drop-in)
from course.recurrent import RNN  # notebook 01's RNN, its loop over time one operation
from mynn.optimizers.adam import Adam
from mygrad.nnet import glorot_normal, softmax_crossentropy

from course.runtime import pick
from course.progress import progress
from course.figures import setup_backend, create_plot, reversal_labels, show_attention, show_reversal

setup_backend()

# %% [markdown] nbgrader={"grade": false, "grade_id": "given_text", "locked": true, "schema_version": 3, "solution": false}
# ## Given code from notebooks 01 and 02
#
# The locked cell below holds the reference solutions you need: `generate_batch`, `loss_and_accuracy` and
# `accuracy_by_length` with the token indices `START_TOKEN = 10` and `END_TOKEN = 11` from notebook 01,
# and `one_hot_encode_prediction` and `Seq2Seq` from notebook 02. Run it.
#
# `RNN` comes from `course.recurrent`, imported in the first cell, as in notebook 02: notebook 01's reference with its
# input layer and loop over time done by one MyGrad operation, `course.ops.tanh_rnn`.

# %% course={"given": ["01_rnn:generate_batch", "01_rnn:loss_and_accuracy", "01_rnn:accuracy_by_length", "02_seq2seq:one_hot_encode_prediction", "02_seq2seq:seq2seq"]} nbgrader={"grade": false, "grade_id": "given_code", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
# Given code from earlier assignments (locked).
# It is the reference solution, so your mark here does not depend on an earlier one.

# --- from 01_rnn: generate_batch ---
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
    n_digits = np.random.randint(seq_len_min, seq_len_max + 1)  # T - 1
    digits = np.random.randint(0, 10, size=(n_digits, batch_size))

    one_hot_x = np.zeros((n_digits + 1, batch_size, 12), dtype=np.float32)
    steps = np.arange(n_digits)[:, np.newaxis]  # shape (T - 1, 1): broadcasts against digits
    one_hot_x[steps, np.arange(batch_size), digits] = 1
    one_hot_x[-1, :, END_TOKEN] = 1

    last_row = np.full((1, batch_size), END_TOKEN, dtype=digits.dtype)
    target = np.concatenate([digits[::-1], last_row], axis=0)
    return one_hot_x, target, digits

# --- from 01_rnn: loss_and_accuracy ---
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
    K = scores.shape[-1]
    loss = softmax_crossentropy(scores.reshape(-1, K), target.reshape(-1))

    predictions = np.argmax(mg.asarray(scores), axis=-1)  # (T, N)
    all_right = np.all(predictions == target, axis=0)  # (N,): every step of sequence n is right
    accuracy = float(np.mean(all_right))
    return loss, accuracy

# --- from 01_rnn: accuracy_by_length ---
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
    lengths = range(seq_len_min, seq_len_max + 1)
    accuracies = np.zeros(len(lengths))
    with mg.no_autodiff:
        for i, length in enumerate(lengths):
            x, target, _ = generate_batch(length, length, n_per_length)
            predictions = np.argmax(mg.asarray(predict(x)), axis=-1)  # (T, N)
            accuracies[i] = np.mean(np.all(predictions == target, axis=0))
    return accuracies

# --- from 02_seq2seq: one_hot_encode_prediction ---
def one_hot_encode_prediction(y_t):
    """The one-hot vectors of the best-scoring classes: the decoder's next input.

    Parameters
    ----------
    y_t : Union[numpy.ndarray, mygrad.Tensor], shape=(1, N, K)
        The scores of one decoder step.

    Returns
    -------
    numpy.ndarray, shape=(1, N, K), dtype=float32
        1 at the class of each sequence's largest score, 0 elsewhere.
    """
    scores = mg.asarray(y_t)  # the NumPy array behind the tensor: no graph
    best = scores.argmax(axis=-1)  # (1, N): the winning class of each sequence
    return np.eye(scores.shape[-1], dtype=np.float32)[best]  # row `best` of the identity

# --- from 02_seq2seq: seq2seq ---
class Seq2Seq:
    """An encoder RNN reads a sequence; a decoder RNN writes the output with greedy decoding.

    Attributes
    ----------
    encoder : RNN
        RNN(C, D, K): reads the source.
    decoder : RNN
        RNN(K, D, K), with weights of its own: writes the output.

    The checks load weights they chose into both RNNs, through the `weight` and
    `bias` of each one's `input_layer`, `recurrent_layer` and `output_layer`.
    """

    def __init__(self, dim_input, dim_recurrent, dim_output):
        """Create the encoder and the decoder, two `RNN`s with their own weights.

        Parameters
        ----------
        dim_input : int
            C, the size of a source one-hot vector.
        dim_recurrent : int
            D, the size of the hidden state of both RNNs.
        dim_output : int
            K, the number of output classes. The decoder reads one-hot vectors of
            its own guesses (and <S>), so K is also the decoder's input size.
        """
        self.dim_output = dim_output
        self.encoder = RNN(dim_input, dim_recurrent, dim_output)
        self.decoder = RNN(dim_output, dim_recurrent, dim_output)

    def __call__(self, x):
        """Encode a batch of sequences, then decode T steps greedily.

        Parameters
        ----------
        x : Union[numpy.ndarray, mygrad.Tensor], shape=(T, N, C)
            The one-hot source sequences, end token included.

        Returns
        -------
        mygrad.Tensor, shape=(T, N, K)
            The decoder's scores y_1, ..., y_T.
        """
        T, N = x.shape[:2]
        _, enc_h = self.encoder(x)  # states (T, N, D); the encoder's scores are not used
        h = enc_h[-1:]  # h^d_0 = h^e_T, shape (1, N, D)

        s = np.zeros((1, N, self.dim_output), dtype=np.float32)
        s[:, :, START_TOKEN] = 1  # s_1 = one-hot(<S>)

        scores = []
        for _ in range(T):
            y_t, h = self.decoder(s, h)  # one step: (1, N, K) and (1, N, D)
            scores.append(y_t)
            s = one_hot_encode_prediction(y_t)  # s_{t+1}: the decoder's own guess
        return mg.concatenate(scores, axis=0)

    @property
    def parameters(self):
        """All learnable tensors of both RNNs, as a tuple (for the optimizer).

        Returns
        -------
        Tuple[mygrad.Tensor, ...]
        """
        return self.encoder.parameters + self.decoder.parameters



# %% [markdown] nbgrader={"grade": false, "grade_id": "attention_text", "locked": true, "schema_version": 3, "solution": false}
# ## Scores, weights and a context vector
#
# Stack the encoder states of one sequence as the rows of a $(T, D)$ matrix $H^e$ (row $j$ is $h^e_j$).
# At decoder step $t$, after the decoder RNN has produced $y_t$ and its new state $h^d_t$, attention takes
# three steps.
#
# 1. **Scores.** One number per encoder state, a dot product with the decoder state through a learned $(D, D)$ matrix
#    $W_\alpha$:
#    $$
#    e_{t,j} = \big(h^e_j W_\alpha\big) \cdot h^d_t, \qquad \text{all at once: } e_t = H^e W_\alpha\, h^d_t \in \mathbb{R}^T.
#    $$
#    With $W_\alpha$ the identity this is the plain dot product, large when the two states point the same way.
#    $W_\alpha$ lets the model learn *which* features of an encoder state should match which features of the
#    decoder state. This is Luong's *general* score (Luong, Pham and Manning, 2015); the first attention for
#    translation (Bahdanau, Cho and Bengio, 2015) scored with a small network instead, the *additive* score
#    $v^\top \tanh(h^e_j W_1 + h^d_{t-1} W_2)$, made with the decoder state before the step (exercises 1 and 2).
# 2. **Weights.** A softmax over the $T$ encoder steps turns the scores into weights that are positive and add up to 1:
#    $$
#    \alpha_{t,j} = \frac{\exp(e_{t,j})}{\sum_{j'=1}^{T} \exp(e_{t,j'})}.
#    $$
# 3. **Context.** The weighted average of the encoder states:
#    $$
#    c_t = \sum_{j=1}^{T} \alpha_{t,j}\, h^e_j \in \mathbb{R}^D .
#    $$

# %% [markdown] nbgrader={"grade": false, "grade_id": "attention_picture_text", "locked": true, "schema_version": 3, "solution": false}
# ![One decoder step: the decoder state h^d_t is scored against every encoder state, a softmax over the encoder steps turns the scores into weights, the weighted sum of the encoder states is the context c_t, which is joined with y_t to give the final scores](figures/attention_step.svg)
#
# *Figure: the three steps for one decoder step $t$, from the bottom up: scores $e_{t,j}$, weights $\alpha_{t,j}$ (a softmax across the row), context $c_t = \sum_j \alpha_{t,j} h^e_j$; on the right, $[y_t, c_t]$ becomes the final scores $\hat y_t$ (Part B).*
#
# If the weights single out one position $j$, then $c_t \approx h^e_j$: the decoder reads that encoder state directly,
# however far back it lies, instead of hoping that $h^e_T$ still remembers it.

# %% [markdown] nbgrader={"grade": false, "grade_id": "attention_batch_text", "locked": true, "schema_version": 3, "solution": false}
# ### The same, with a batch
#
# The product $H^e W_\alpha$ does not depend on $t$. Compute it **once** per batch, right after the encoder, and reuse it
# at every decoder step.
#
# Time is axis 0 and the batch axis 1, as always. The five quantities then have these shapes:
#
# | quantity | shape | how |
# |---|---|---|
# | `enc_proj` $= H^e W_\alpha$ | $(T, N, D)$ | the dense layer `W_alpha` applied to `enc_h` |
# | `h_t` $= h^d_t$ | $(1, N, D)$ | broadcasts against the $T$ rows of `enc_proj` |
# | scores `e_t` | $(T, N)$ | multiply elementwise, sum over the last axis ($D$) |
# | weights `a_t` | $(T, N)$ | `mg.nnet.softmax(e_t, axis=0)`: over the encoder steps, not the batch |
# | context `c_t` | $(1, N, D)$ | `a_t[:, :, np.newaxis] * enc_h`, summed over axis 0 with `keepdims=True` |

# %% [markdown] nbgrader={"grade": false, "grade_id": "attend_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part A: one attention step (3 points)
#
# Complete `attend`, which computes the scores, the weights and the context of one decoder step for a whole batch,
# following the table above. Use MyGrad operations, so that gradients reach $W_\alpha$, the encoder and the decoder.

# %% nbgrader={"grade": false, "grade_id": "attend", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
def attend(enc_proj, enc_h, h_t):
    """One step of attention: weights over the encoder states, and their weighted average.

    Parameters
    ----------
    enc_proj : mygrad.Tensor, shape=(T, N, D)
        The encoder states times W_alpha, H^e W_alpha (computed once per batch).
    enc_h : mygrad.Tensor, shape=(T, N, D)
        The encoder states h^e_1, ..., h^e_T.
    h_t : mygrad.Tensor, shape=(1, N, D)
        The decoder state h^d_t of this step.

    Returns
    -------
    c_t : mygrad.Tensor, shape=(1, N, D)
        The context vectors, one per sequence.
    a_t : mygrad.Tensor, shape=(T, N)
        The attention weights; each column (one sequence) sums to 1 over the T encoder steps.
    """
    ### BEGIN SOLUTION
    # The table's multiply-and-sum, each as one einsum (fewer, faster operations on the way back).
    # Label s is h_t's axis of size 1: the scores keep it, (T, 1, N), so the context comes out (1, N, D).
    e_t = mg.einsum("tnd,snd->tsn", enc_proj, h_t)  # one score per encoder step and sequence
    weights = mg.nnet.softmax(e_t, axis=0)  # normalise over the T encoder steps
    c_t = mg.einsum("tsn,tnd->snd", weights, enc_h)  # weighted average of the encoder states: (1, N, D)
    return c_t, weights.reshape(e_t.shape[0], e_t.shape[2])  # the weights as (T, N)
    ### END SOLUTION


# %%
# Try it: random states for T = 4 encoder steps, N = 2 sequences, D = 3.
rng_demo = np.random.default_rng(0)
enc_h_demo = mg.tensor(rng_demo.normal(size=(4, 2, 3)).astype(np.float32))
h_demo = mg.tensor(rng_demo.normal(size=(1, 2, 3)).astype(np.float32))
c_demo, a_demo = attend(enc_h_demo, enc_h_demo, h_demo)  # W_alpha = identity: enc_proj = enc_h
print("weights (one column per sequence):", a_demo, sep="\n")
print("column sums:", a_demo.sum(axis=0))
print("context:", c_demo.shape)

# %% course={"task": "attend"} nbgrader={"grade": true, "grade_id": "attend__hand_computed", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that attend gives the weights and context of a small case worked out by hand
ln2 = np.float32(np.log(2))
enc_proj = np.zeros((3, 2, 2), dtype=np.float32)  # T = 3, N = 2, D = 2
enc_proj[:, 0] = [[ln2, 0], [0, 0], [0, ln2]]
enc_proj[:, 1] = [[1, 2], [3, -1], [0, 5]]
enc_h = np.zeros((3, 2, 2), dtype=np.float32)
enc_h[:, 0] = [[1, 0], [0, 1], [1, 1]]
enc_h[:, 1] = [[3, 0], [0, 3], [0, 0]]
h_t = np.array([[[1, 1], [0, 0]]], dtype=np.float32)  # (1, N, D)
# sequence 0: scores (ln 2, 0, ln 2), so weights (2, 1, 2) / 5; sequence 1: all scores 0, so weights 1/3
a_expected = np.array([[0.4, 1 / 3], [0.2, 1 / 3], [0.4, 1 / 3]])
c_expected = np.array([[[0.8, 0.6], [1.0, 1.0]]])
c, a = attend(mg.tensor(enc_proj), mg.tensor(enc_h), mg.tensor(h_t))
assert a.shape == (3, 2), f"weights of shape {a.shape}, expected (T, N) = (3, 2)"
assert np.allclose(mg.asarray(a).sum(axis=0), 1.0, atol=1e-5), \
    f"weights\n{mg.asarray(a)}\nwhose columns sum to {mg.asarray(a).sum(axis=0)}: each sequence's weights must sum " \
    "to 1 over the T encoder steps, so take the softmax over axis 0, not over the batch axis"
assert np.allclose(mg.asarray(a), a_expected, atol=1e-5), \
    f"weights\n{mg.asarray(a)}\nexpected\n{a_expected}\nthe score of encoder step j is enc_proj (not enc_h) times " \
    "h_t, summed over the D features; the softmax comes after that sum"
assert c.shape == (1, 2, 2), \
    f"context of shape {c.shape}, expected (1, N, D) = (1, 2, 2): sum over the encoder steps (axis 0) with keepdims=True"
assert np.allclose(mg.asarray(c), c_expected, atol=1e-5), \
    f"context\n{mg.asarray(c)}\nexpected\n{c_expected}\nthe context sums the weights times the encoder states " \
    "enc_h (not enc_proj) over the encoder steps"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("attend__hand_computed")  # this submission's own inputs
N, D = int(rng.integers(2, 6)), int(rng.integers(2, 5))
# one encoder step: the weight is 1 and the context is that state
enc_proj_1, enc_h_1 = rng.normal(size=(2, 1, N, D)).astype(np.float32)
h_one = rng.normal(size=(1, N, D)).astype(np.float32)
c, a = attend(mg.tensor(enc_proj_1), mg.tensor(enc_h_1), mg.tensor(h_one))
assert a.shape == (1, N) and c.shape == (1, N, D), \
    f"with a single encoder step: shapes {a.shape} and {c.shape}, expected (T, N) and (1, N, D)"
assert np.allclose(mg.asarray(a), 1.0) and np.allclose(mg.asarray(c), enc_h_1), \
    "with a single encoder step, its weight must be 1 and the context that encoder state"
# a dominant score puts (almost) all the weight on its position
T, big = int(rng.integers(3, 9)), int(rng.integers(0, 3))
enc_proj_big = np.zeros((T, N, D), dtype=np.float32)
enc_proj_big[big, :, 0] = 40.0
enc_h_big = rng.normal(size=(T, N, D)).astype(np.float32)
h_ones = np.ones((1, N, D), np.float32)
c, a = attend(mg.tensor(enc_proj_big), mg.tensor(enc_h_big), mg.tensor(h_ones))
assert a.shape == (T, N) and c.shape == (1, N, D), \
    f"with one large score: shapes {a.shape} and {c.shape}, expected (T, N) and (1, N, D)"
assert np.all(np.isfinite(mg.asarray(a))) and np.allclose(mg.asarray(a)[big], 1.0, atol=1e-6), \
    "a large score at one encoder step must take (almost) all the weight, without overflow: use mg.nnet.softmax"
assert np.allclose(mg.asarray(c)[0], enc_h_big[big], atol=1e-5), \
    "when all the weight sits on one encoder step, the context must be that step's state"
### END HIDDEN TESTS

# %% course={"task": "attend"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "attend__batch_and_gradients", "locked": true, "points": 2, "schema_version": 3, "solution": false}
# Check that attend matches a NumPy version for a random batch, treats sequences separately and passes gradients
def numpy_attend(enc_proj, enc_h, h_t):
    e = (enc_proj * h_t).sum(axis=-1)  # (T, N)
    a = np.exp(e - e.max(axis=0))
    a = a / a.sum(axis=0)
    return (a[..., None] * enc_h).sum(axis=0, keepdims=True), a


rng = np.random.default_rng(0)
enc_proj, enc_h = rng.normal(size=(2, 5, 4, 3)).astype(np.float32)  # T = 5, N = 4, D = 3
h_t = rng.normal(size=(1, 4, 3)).astype(np.float32)
c_ref, a_ref = numpy_attend(enc_proj, enc_h, h_t)
tensors = [mg.tensor(enc_proj), mg.tensor(enc_h), mg.tensor(h_t)]
c, a = attend(*tensors)
assert isinstance(c, mg.Tensor) and isinstance(a, mg.Tensor), "return MyGrad tensors (the model backpropagates through c_t)"
assert a.shape == (5, 4) and c.shape == (1, 4, 3), f"shapes {a.shape} and {c.shape}, expected (5, 4) and (1, 4, 3)"
assert np.allclose(a.data.sum(axis=0), 1.0, atol=1e-5), "the weights of each sequence must sum to 1 over the T encoder steps"
assert np.allclose(a.data, a_ref, atol=1e-5), "weights differ from softmax over axis 0 of sum(enc_proj * h_t, axis=-1)"
assert np.allclose(c.data, c_ref, atol=1e-5), "context differs from the weighted sum of enc_h over the encoder steps"
assert c.dtype == np.float32 and a.dtype == np.float32, f"got {c.dtype} and {a.dtype}; keep float32"
c.sum().backward()
grads = [t.grad for t in tensors]
for name, grad in zip(["enc_proj", "enc_h", "h_t"], grads):
    assert grad is not None and np.any(grad != 0), \
        f"no gradient reaches {name} from the context c: compute the weights and the context with MyGrad operations " \
        "on the tensors themselves (.astype, .data and np.asarray cut MyGrad's graph)"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("attend__batch_and_gradients")  # this submission's own inputs, none of the visible ones
T, N, D = int(rng.integers(2, 9)), int(rng.integers(3, 7)), int(rng.integers(2, 6))
enc_proj, enc_h = rng.normal(size=(2, T, N, D)).astype(np.float32)
h_t = rng.normal(size=(1, N, D)).astype(np.float32)
c_ref, a_ref = numpy_attend(enc_proj, enc_h, h_t)
tensors = [mg.tensor(enc_proj), mg.tensor(enc_h), mg.tensor(h_t)]
c, a = attend(*tensors)
c.sum().backward()
grads = [t.grad for t in tensors]
# changing one sequence leaves the other sequences alone
changed = int(rng.integers(0, N))
enc_h2 = enc_h.copy()
enc_h2[:, changed] += 5
enc_proj2 = enc_proj.copy()
enc_proj2[:, changed] *= -3
c2, a2 = attend(mg.tensor(enc_proj2), mg.tensor(enc_h2), mg.tensor(h_t))
assert a2.shape == (T, N) and c2.shape == (1, N, D), f"shapes {a2.shape} and {c2.shape}, expected (T, N) and (1, N, D)"
keep = [n for n in range(N) if n != changed]
assert np.allclose(c2.data[:, keep], c_ref[:, keep], atol=1e-5) and np.allclose(a2.data[:, keep], a_ref[:, keep], atol=1e-5), \
    "changing one sequence changed the weights a or the context c of other sequences: keep the batch axis apart"
# the gradients match NumPy's finite differences for one entry of each input


def objective(enc_proj, enc_h, h_t):
    c, a = numpy_attend(enc_proj.astype(np.float64), enc_h.astype(np.float64), h_t.astype(np.float64))
    return c.sum()


spot_rng = hidden_rng("attend__batch_and_gradients:spots")  # drawn by the judge alone: a stream of its own
spots = [tuple(int(spot_rng.integers(0, n)) for n in arr.shape) for arr in (enc_proj, enc_h, h_t)]
for k, arr in enumerate([enc_proj, enc_h, h_t]):
    idx = spots[k]
    plus = [a.astype(np.float64) for a in (enc_proj, enc_h, h_t)]
    minus = [a.copy() for a in plus]
    plus[k][idx] += 1e-4
    minus[k][idx] -= 1e-4
    numeric = (objective(*plus) - objective(*minus)) / 2e-4
    assert np.shape(grads[k]) == arr.shape, \
        f"the gradient with respect to {['enc_proj', 'enc_h', 'h_t'][k]} has shape {np.shape(grads[k])}, expected the shape of that input"
    assert np.isclose(grads[k][idx], numeric, atol=1e-3), \
        f"the gradient of the context c with respect to {['enc_proj', 'enc_h', 'h_t'][k]} differs from finite " \
        "differences"
# larger T, N, D
T, N, D = int(rng.integers(16, 25)), int(rng.integers(6, 10)), int(rng.integers(5, 9))
enc_proj, enc_h = rng.normal(size=(2, T, N, D)).astype(np.float32)
h_t = rng.normal(size=(1, N, D)).astype(np.float32)
c, a = attend(mg.tensor(enc_proj), mg.tensor(enc_h), mg.tensor(h_t))
c_ref, a_ref = numpy_attend(enc_proj, enc_h, h_t)
assert a.shape == (T, N) and c.shape == (1, N, D), \
    f"for a larger T, N and D: shapes {a.shape} and {c.shape}, expected (T, N) and (1, N, D)"
assert np.allclose(a.data, a_ref, atol=1e-5) and np.allclose(c.data, c_ref, atol=1e-5), \
    "for a larger T, N and D the weights or the context differ from the NumPy version"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "attention_seq2seq_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part B: Seq2Seq with attention (4 points)
#
# The model is the Seq2Seq of notebook 02 with two more dense layers:
#
# - `self.W_alpha`: $D \to D$, **no bias**, `weight_initializer=glorot_normal`: the matrix $W_\alpha$;
# - `self.output_layer`: $K + D \to K$, with a bias, `weight_initializer=glorot_normal`: it reads the decoder's
#   scores together with the context and produces the step's final scores. The digit due is in the context (an
#   encoder state that has already read it), not in the decoder's own scores; this layer lets the context decide the
#   output. Luong's models do something similar, but join the context with the decoder's state rather than its
#   scores, $\tilde h_t = \tanh([h^d_t, c_t] W_c)$, and read the scores from $\tilde h_t$.
#
# Decoding goes as before, from $h^d_0 = h^e_T$ and $s_1 = \text{one-hot}(\langle S \rangle)$. Each step $t = 1, \dots, T$ now reads
#
# $$
# y_t, h^d_t = \operatorname{RNN}_\text{dec}(s_t, h^d_{t-1}), \qquad
# c_t, \alpha_t = \operatorname{attend}\big(H^e W_\alpha, H^e, h^d_t\big), \qquad
# \hat y_t = [\,y_t, c_t\,]\, W_o + b_o, \qquad
# s_{t+1} = \text{one-hot}\Big(\operatorname*{arg\,max}_k\, \hat y_{t,k}\Big).
# $$
#
# The attention uses the decoder state **after** this step's RNN update, $h^d_t$, which already knows the token $s_t$
# just read. $[\,y_t, c_t\,]$ joins the two vectors along the last axis, $y_t$ first: shape $(1, N, K + D)$.

# %% [markdown] nbgrader={"grade": false, "grade_id": "attention_seq2seq_picture_text", "locked": true, "schema_version": 3, "solution": false}
# ![The attention Seq2Seq: the encoder states form a memory, computed once; at every decoder step an attend box reads it with the decoder state, and the joined y_t and c_t give the final scores, whose arg-max is the next input](figures/attention_seq2seq.svg)
#
# *Figure: the equation above unrolled over the decoder steps: the encoder and the hand-over $h^d_0 = h^e_T$ are notebook 02's; new are one `attend` per step, reading $H^e$ and $H^e W_\alpha$, and the feedback of $\hat y_t$ instead of $y_t$.*

# %% [markdown] nbgrader={"grade": false, "grade_id": "attention_seq2seq_task_text", "locked": true, "schema_version": 3, "solution": false}
# The model returns the final scores $\hat y_1, \dots, \hat y_T$, and it is $\hat y_t$ whose guess is fed back.
#
# `__call__` also returns the attention weights of all steps as one NumPy array `a_ij` of shape $(T, T, N)$:
# `a_ij[t]` holds the $(T, N)$ weights of decoder step $t + 1$ (axis 0 the decoder step, axis 1 the encoder step).
# They are for looking at, not for training, so collect `mg.asarray(a_t)` at each step and `np.stack` them at the end.
#
# Complete the class `AttentionSeq2Seq`. Apply `W_alpha` once, to all the encoder states, before the decoder loop.

# %% nbgrader={"grade": false, "grade_id": "attention_seq2seq", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
class AttentionSeq2Seq:
    """Seq2Seq whose decoder attends to all encoder states at every step.

    Attributes
    ----------
    encoder : RNN
        RNN(C, D, K): reads the source.
    decoder : RNN
        RNN(K, D, K), with weights of its own: writes the output.
    W_alpha : dense
        D -> D, no bias: the matrix W_alpha.
    output_layer : dense
        K + D -> K, with a bias: reads [y_t, c_t].

    The checks load weights they chose into these layers, through each one's
    `weight` and `bias` (and, for the RNNs, those of `input_layer`,
    `recurrent_layer` and `output_layer`).
    """

    def __init__(self, dim_input, dim_recurrent, dim_output):
        """Create the encoder, the decoder, W_alpha and the output layer.

        Parameters
        ----------
        dim_input : int
            C, the size of a source one-hot vector.
        dim_recurrent : int
            D, the size of the hidden state of both RNNs.
        dim_output : int
            K, the number of output classes (and the decoder's input size).
        """
        ### BEGIN SOLUTION
        self.dim_output = dim_output
        self.encoder = RNN(dim_input, dim_recurrent, dim_output)
        self.decoder = RNN(dim_output, dim_recurrent, dim_output)
        self.W_alpha = dense(dim_recurrent, dim_recurrent, weight_initializer=glorot_normal, bias=False)
        self.output_layer = dense(dim_output + dim_recurrent, dim_output, weight_initializer=glorot_normal)
        ### END SOLUTION

    def __call__(self, x):
        """Encode a batch, then decode T steps greedily with attention.

        Parameters
        ----------
        x : Union[numpy.ndarray, mygrad.Tensor], shape=(T, N, C)
            The one-hot source sequences, end token included.

        Returns
        -------
        y : mygrad.Tensor, shape=(T, N, K)
            The final scores of each decoder step.
        a_ij : numpy.ndarray, shape=(T, T, N)
            The attention weights; a_ij[t] are the weights over the T encoder steps
            used at decoder step t + 1.
        """
        ### BEGIN SOLUTION
        T, N = x.shape[:2]
        _, enc_h = self.encoder(x)  # (T, N, D)
        enc_proj = self.W_alpha(enc_h)  # H^e W_alpha, once for all decoder steps
        h = enc_h[-1:]  # h^d_0 = h^e_T

        s = np.zeros((1, N, self.dim_output), dtype=np.float32)
        s[:, :, START_TOKEN] = 1

        scores, weights = [], []
        for _ in range(T):
            y_t, h = self.decoder(s, h)  # (1, N, K) and the new state h^d_t, (1, N, D)
            c_t, a_t = attend(enc_proj, enc_h, h)  # (1, N, D) and (T, N)
            y_hat = self.output_layer(mg.concatenate([y_t, c_t], axis=-1))  # (1, N, K + D) -> (1, N, K)
            scores.append(y_hat)
            weights.append(mg.asarray(a_t))
            s = one_hot_encode_prediction(y_hat)
        return mg.concatenate(scores, axis=0), np.stack(weights)
        ### END SOLUTION

    @property
    def parameters(self):
        """All learnable tensors of the model, as a tuple (for the optimizer).

        Returns
        -------
        Tuple[mygrad.Tensor, ...]
        """
        ### BEGIN SOLUTION
        return (
            self.encoder.parameters
            + self.decoder.parameters
            + self.W_alpha.parameters
            + self.output_layer.parameters
        )
        ### END SOLUTION


# %%
# Try it: an untrained model on two sequences of three digits.
np.random.seed(0)
model_demo = AttentionSeq2Seq(dim_input=12, dim_recurrent=8, dim_output=12)
x_demo, target_demo, _ = generate_batch(3, 3, 2)
y_demo, a_demo = model_demo(x_demo)
print("scores:", y_demo.shape, y_demo.dtype)  # expect (4, 2, 12) float32
print("weights:", a_demo.shape, type(a_demo).__name__)  # expect (4, 4, 2) ndarray
print("weights of sequence 0 (row = decoder step):", a_demo[:, :, 0].round(2), sep="\n")

# %% course={"task": "attention_seq2seq"} nbgrader={"grade": true, "grade_id": "attention_seq2seq__layers", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that the model has W_alpha (D x D, no bias), an output layer from K + D to K, and lists every parameter
np.random.seed(0)
model = AttentionSeq2Seq(12, 5, 12)  # C = K = 12, D = 5
encoder_type, decoder_type = type(model.encoder).__name__, type(model.decoder).__name__
assert encoder_type == decoder_type == "RNN", \
    f"the encoder is a {encoder_type} and the decoder a {decoder_type}: both must be RNNs"
encoder_ids, decoder_ids = [id(p) for p in model.encoder.parameters], [id(p) for p in model.decoder.parameters]
assert len(set(encoder_ids) & set(decoder_ids)) == 0, \
    "the decoder shares weights with the encoder: create two RNNs, each with its own weights"
W_alpha_weight, W_alpha_bias = model.W_alpha.weight, model.W_alpha.bias
assert W_alpha_weight.shape == (5, 5), f"W_alpha has shape {W_alpha_weight.shape}, expected (D, D) = (5, 5)"
assert W_alpha_bias is None, "W_alpha has no bias (dense(..., bias=False))"
out_weight, out_bias = model.output_layer.weight, model.output_layer.bias
assert out_weight.shape == (17, 12), f"output_layer has shape {out_weight.shape}, expected (K + D, K) = (17, 12)"
assert out_bias is not None, "the output layer has a bias"
encoder_in = AttentionSeq2Seq(7, 5, 12).encoder.input_layer.weight.shape  # C = 7, D = 5, K = 12
assert encoder_in == (7, 5), \
    f"AttentionSeq2Seq(7, 5, 12) reads inputs with C = 7, but its encoder's input layer has shape {encoder_in}, " \
    "expected (C, D) = (7, 5): the encoder is RNN(C, D, K), the decoder RNN(K, D, K)"
params = model.parameters
assert isinstance(params, tuple), "parameters must be a tuple (a property, not a method)"
param_ids = [id(p) for p in params]
for k, p in enumerate(params):
    p.data[...] = k + 1  # what an optimizer writes through parameters must reach every layer
written = {"encoder": model.encoder.recurrent_layer.weight.data, "decoder": model.decoder.recurrent_layer.weight.data,
           "W_alpha": model.W_alpha.weight.data, "output_layer": model.output_layer.weight.data}
for name, values in written.items():
    assert np.all(values >= 1), \
        f"parameters must include those of {name}: values written through parameters did not reach its weight"
### BEGIN HIDDEN TESTS
assert len(params) == len(set(param_ids)) == 13, \
    f"parameters must list the encoder's, the decoder's, W_alpha's weight and the output layer's weight and bias, " \
    f"each once; it holds {len(params)} entries, {len(set(param_ids))} distinct"
from course.draws import hidden_rng

np.random.seed(int(hidden_rng("attention_seq2seq__layers").integers(2**31)))  # this submission's own draw
model = AttentionSeq2Seq(12, 50, 12)
W_alpha_weight, out_weight = model.W_alpha.weight, model.output_layer.weight
assert 0.11 < float(W_alpha_weight.data.std()) < 0.17 and abs(float(W_alpha_weight.data.mean())) < 0.02, \
    f"W_alpha does not look glorot_normal (std {float(W_alpha_weight.data.std()):.3f}): pass weight_initializer=glorot_normal"
assert 0.13 < float(out_weight.data.std()) < 0.2, \
    f"output_layer does not look glorot_normal (std {float(out_weight.data.std()):.3f}): pass weight_initializer=glorot_normal"
assert W_alpha_weight.dtype == np.float32 and out_weight.dtype == np.float32, \
    f"W_alpha is {W_alpha_weight.dtype} and the output layer {out_weight.dtype}, expected float32"
### END HIDDEN TESTS

# %% course={"task": "attention_seq2seq"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "attention_seq2seq__decoding", "locked": true, "points": 2, "schema_version": 3, "solution": false}
# Check that every step attends with the decoder's new state, reads [y_t, c_t] and feeds back the final guess
# AttentionSeq2Seq calls your attend at every step: first, that it passes Part A's case worked out by hand
from course.checks import attend_case, attends_like_the_hand_case

hand_proj, hand_h, hand_s = attend_case()  # T = 3, N = 2, D = 2: the case of attend's first check
hand_proj_tensor = mg.tensor(hand_proj)
own_c, own_a = attend(hand_proj_tensor, mg.tensor(hand_h), mg.tensor(hand_s))
own_attend = [mg.asarray(own_a), mg.asarray(own_c)]
assert attends_like_the_hand_case(own_attend[0], own_attend[1]), (
    "AttentionSeq2Seq calls your attend, which fails attend's own case worked out by hand: fix attend (Part A) first"
)
class StubEncoder:
    # stands in for the encoder RNN: fixed states
    def __init__(self, states):
        self.states = mg.tensor(states)

    def __call__(self, x, h=None):
        return mg.zeros(x.shape[:2] + (12,), dtype=np.float32), self.states


class StubDecoder:
    # stands in for the decoder RNN: state and scores depend on the input token; it records its inputs
    def __init__(self, table, mix):
        self.table, self.mix = table, mix
        self.inputs, self.states = [], []

    def __call__(self, x, h=None):
        self.inputs.append(np.array(mg.asarray(x)))
        self.states.append(None if h is None else np.array(mg.asarray(h)))
        if h is None:  # recorded as None; the check below names it
            h = np.zeros(x.shape[:2] + self.mix.shape[1:], dtype=np.float32)
        return mg.matmul(x, self.table), mg.tanh(h + mg.matmul(x, self.mix))


class CountingLayer:
    # wraps a dense layer and counts its calls
    def __init__(self, layer):
        self.layer, self.calls = layer, 0

    def __call__(self, x):
        self.calls += 1
        return self.layer(x)

    def __getattr__(self, name):
        return getattr(self.layer, name)


def stub_weights(T, N, D, seed):
    # the stubs' states and tables, and the weights of W_alpha and of the output layer
    rng = np.random.default_rng(seed)
    return {"states": rng.normal(size=(T, N, D)).astype(np.float32),
            "table": rng.normal(size=(12, 12)).astype(np.float32), "mix": rng.normal(size=(12, D)).astype(np.float32),
            "W_alpha": rng.normal(size=(D, D)).astype(np.float32),  # not symmetric: W_alpha's side matters
            "W_out": rng.normal(size=(12 + D, 12)).astype(np.float32), "b_out": rng.normal(size=(1, 12)).astype(np.float32)}


def stub_model(w):
    # the model with stub RNNs, the weights w and a W_alpha that counts its calls
    T, N, D = w["states"].shape
    model = AttentionSeq2Seq(12, D, 12)
    model.encoder = StubEncoder(w["states"])
    model.decoder = StubDecoder(w["table"], w["mix"])
    model.W_alpha.weight.data[...] = w["W_alpha"]
    model.output_layer.weight.data[...] = w["W_out"]
    model.output_layer.bias.data[...] = w["b_out"]
    model.W_alpha = CountingLayer(model.W_alpha)
    return model


def expected(w):
    # the whole decoding in NumPy, with the stubs' rules and the weights w of W_alpha and the output layer
    H, table, mix = w["states"], w["table"], w["mix"]
    W_a, W_o, b_o = w["W_alpha"], w["W_out"], w["b_out"]
    T, N, _ = H.shape
    H_proj, h = H @ W_a, H[-1:]
    s = np.eye(12, dtype=np.float32)[np.full((1, N), 10)]
    inputs, states, scores, weights = [], [], [], []
    for _ in range(T):
        inputs.append(s)
        states.append(h)
        y, h = s @ table, np.tanh(h + s @ mix)
        e = (H_proj * h).sum(axis=-1)
        a = np.exp(e - e.max(axis=0))
        a = a / a.sum(axis=0)
        c = (a[..., None] * H).sum(axis=0, keepdims=True)
        y_hat = np.concatenate([y, c], axis=-1) @ W_o + b_o
        scores.append(y_hat)
        weights.append(a)
        s = np.eye(12, dtype=np.float32)[y_hat.argmax(axis=-1)]
    return inputs, states, np.concatenate(scores), np.stack(weights)


w = stub_weights(T=6, N=3, D=4, seed=0)
inputs, states, scores, weights = expected(w)
model = stub_model(w)
y, a_ij = model(np.zeros((6, 3, 12), np.float32))
calls, decoder_inputs, decoder_states = model.W_alpha.calls, model.decoder.inputs, model.decoder.states
assert calls <= 1, f"W_alpha was called {calls} times: apply it once, to all encoder states"
assert len(decoder_inputs) == 6, f"the decoder ran {len(decoder_inputs)} steps, expected T = 6"
assert np.array_equal(decoder_inputs[0], inputs[0]), "the first decoder input must be one-hot <S> (index 10)"
assert decoder_states[0] is not None, \
    "the decoder must be given a start state: h^d_0 = h^e_T, the encoder's last state"
assert decoder_states[0].shape == (1, 3, 4), \
    f"start state of shape {decoder_states[0].shape}, expected (1, N, D) = (1, 3, 4)"
assert np.allclose(decoder_states[0], states[0]), "the decoder must start from the encoder's last state"
assert isinstance(y, mg.Tensor) and y.shape == (6, 3, 12), "return the scores as a (T, N, K) tensor"
assert isinstance(a_ij, np.ndarray) and not isinstance(a_ij, mg.Tensor), "return the weights as a NumPy array"
assert a_ij.shape == (6, 6, 3), \
    f"weights of shape {a_ij.shape}, expected (T, T, N) = (6, 6, 3): np.stack the T steps' (T, N) weights " \
    "along a new first axis"
for t in range(6):  # step by step: what a step reads before what it computes from it
    assert np.array_equal(decoder_inputs[t], inputs[t]), \
        f"the decoder's input s at step {t + 1} must be the one-hot vector of the previous step's best final " \
        "score y_hat (the output layer's), not of the RNN's own y_t, nor the scores themselves"
    assert np.allclose(a_ij[t], weights[t], atol=1e-5), \
        f"the attention weights a_ij[{t}] of step {t + 1} differ: attend to H^e W_alpha with the decoder state " \
        "after this step's update"
    assert np.allclose(y.data[t], scores[t], atol=1e-4), \
        f"the scores y[{t}] of step {t + 1} differ: return the output layer's final scores, " \
        "y_hat = [y_t, c_t] W_o + b_o with y_t first, not the RNN's y_t"
### BEGIN HIDDEN TESTS
def run_stub(w):
    # one run of the model with the stubs on a tensor of zeros: its outputs, W_alpha's calls, the decoder's inputs
    T, N, _ = w["states"].shape
    model = stub_model(w)
    y, a_ij = model(mg.tensor(np.zeros((T, N, 12), np.float32)))
    return y, a_ij, model.W_alpha.calls, model.decoder.inputs, model.decoder.states


from course.draws import hidden_rng

rng = hidden_rng("attention_seq2seq__decoding")  # this submission's own inputs: one step, a long run, one sequence
cases = [(1, int(rng.integers(2, 5)), int(rng.integers(2, 6)), int(rng.integers(2**31))),
         (int(rng.integers(8, 14)), int(rng.integers(2, 6)), int(rng.integers(2, 7)), int(rng.integers(2**31))),
         (int(rng.integers(2, 7)), 1, int(rng.integers(2, 5)), int(rng.integers(2**31)))]  # T, N, D, seed
stubs = [stub_weights(T, N, D, seed) for T, N, D, seed in cases]
wanted = [expected(w) for w in stubs]
runs = [run_stub(w) for w in stubs]
for (T, N, D, seed), (inputs, states, scores, weights), (y, a_ij, calls, decoder_inputs, decoder_states) \
        in zip(cases, wanted, runs):
    assert calls <= 1, f"W_alpha was called {calls} times, apply it once"
    assert len(decoder_inputs) == T, f"the decoder ran {len(decoder_inputs)} steps, expected T: one step per output token"
    for t in range(T):
        assert np.array_equal(decoder_inputs[t], inputs[t]), \
            "a decoder input must be <S> at the first step, then the one-hot of the previous best final score"
        assert decoder_states[t].shape == (1, N, D), \
            f"the state passed to a decoder step has shape {decoder_states[t].shape}, expected (1, N, D)"
        assert np.allclose(decoder_states[t], states[t], atol=1e-5), \
            "each decoder step must start from the state returned by the step before (the encoder's last state at the first step)"
    assert a_ij.shape == (T, T, N) and np.allclose(a_ij, weights, atol=1e-5), \
        f"the weights a_ij (shape {a_ij.shape}) differ from the softmax of the scores, a (T, T, N) array"
    assert y.shape == (T, N, 12) and np.allclose(y.data, scores, atol=1e-4), \
        f"the final scores (shape {y.shape}) differ from [y_t, c_t] W_o + b_o"
### END HIDDEN TESTS

# %% course={"task": "attention_seq2seq"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "attention_seq2seq__matches_reference", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that the model with real RNNs, given weights chosen here, matches a step-by-step reference, and that gradients reach W_alpha
# AttentionSeq2Seq calls your attend at every step: first, that it passes Part A's case worked out by hand
from course.checks import attend_case, attends_like_the_hand_case

hand_proj, hand_h, hand_s = attend_case()  # T = 3, N = 2, D = 2: the case of attend's first check
hand_proj_tensor = mg.tensor(hand_proj)
own_c, own_a = attend(hand_proj_tensor, mg.tensor(hand_h), mg.tensor(hand_s))
own_c.sum().backward()
own_attend = [mg.asarray(own_a), mg.asarray(own_c), hand_proj_tensor.grad]
assert (
    attends_like_the_hand_case(own_attend[0], own_attend[1])
    and own_attend[2] is not None
    and np.any(own_attend[2] != 0)
), (
    "AttentionSeq2Seq calls your attend, which fails attend's own case worked out by hand (its values, or a "
    "gradient back to enc_proj): fix attend (Part A) first"
)
def chosen_weights(C, D, K, seed):
    # weights for every layer, by role: each RNN's (input weight and bias, recurrent weight, output weight and
    # bias), then W_alpha's weight and the output layer's weight and bias
    rng = np.random.default_rng(seed)
    normal = lambda *shape: rng.normal(scale=0.5, size=shape).astype(np.float32)
    rnn = lambda c: (normal(c, D), normal(1, D), normal(D, D), normal(D, K), normal(1, K))
    return rnn(C), rnn(K), normal(D, D), normal(K + D, K), normal(1, K)


def load_weights(model, p):
    # the weights p into the model's layers, through the names the task gives them
    def put(layer, weight, bias=None):
        layer.weight.data[...] = weight
        if bias is not None and layer.bias is not None:
            layer.bias.data[...] = bias

    for rnn, (W_in, b_in, W_rec, W_out, b_out) in [(model.encoder, p[0]), (model.decoder, p[1])]:
        put(rnn.input_layer, W_in, b_in)
        put(rnn.recurrent_layer, W_rec)
        put(rnn.output_layer, W_out, b_out)
    put(model.W_alpha, p[2])
    put(model.output_layer, p[3], p[4])


def rnn_numpy(p, x, h):
    # the RNN of notebook 01 in NumPy, with the weights p: its scores and states for x from the state h
    W_in, b_in, W_rec, W_out, b_out = p
    h_t, states = h[0], []
    for x_t in x @ W_in + b_in:
        h_t = np.tanh(x_t + h_t @ W_rec)
        states.append(h_t)
    return np.stack(states) @ W_out + b_out, np.stack(states)


def reference_attention(p, x):
    # the same computation in NumPy, from the weights p (see chosen_weights), one decoder step at a time
    p_encoder, p_decoder, W_alpha, W_out, b_out = p
    T, N = x.shape[:2]
    _, H = rnn_numpy(p_encoder, x, np.zeros((1, N, W_alpha.shape[0]), np.float32))
    H_proj = H @ W_alpha
    h, s, scores, weights = H[-1:], np.zeros((1, N, 12), np.float32), [], []
    s[..., 10] = 1
    for _ in range(T):
        y_t, h = rnn_numpy(p_decoder, s, h)
        e = (H_proj * h).sum(axis=-1)
        a = np.exp(e - e.max(axis=0))
        a = a / a.sum(axis=0)
        c = (a[..., None] * H).sum(axis=0, keepdims=True)
        y_hat = np.concatenate([y_t, c], axis=-1) @ W_out + b_out
        scores.append(y_hat)
        weights.append(a)
        s = np.eye(12, dtype=np.float32)[y_hat.argmax(axis=-1)]
    return np.concatenate(scores), np.stack(weights)


x = np.eye(12, dtype=np.float32)[np.random.default_rng(0).integers(0, 12, size=(7, 4))]
weights = chosen_weights(12, 6, 12, seed=1)
scores_ref, a_ref = reference_attention(weights, x)
np.random.seed(0)
model = AttentionSeq2Seq(12, 6, 12)
load_weights(model, weights)
y, a_ij = model(x.copy())
assert isinstance(y, mg.Tensor) and y.shape == (7, 4, 12) and y.dtype == np.float32, \
    f"the scores y are a {type(y).__name__} of shape {y.shape}; return float32 scores as a (T, N, K) tensor"
assert isinstance(a_ij, np.ndarray) and a_ij.shape == (7, 7, 4), \
    f"the weights a_ij have shape {np.shape(a_ij)}; return them as a (T, T, N) NumPy array"
assert np.allclose(a_ij.sum(axis=1), 1.0, atol=1e-5), "the weights a_ij of each step must sum to 1 over the encoder steps"
assert np.allclose(a_ij, a_ref, atol=1e-5), \
    "the attention weights a_ij differ from the reference on the weights this test loaded into your layers"
assert np.allclose(y.data, scores_ref, atol=1e-5), \
    "the scores y differ from the reference on the weights this test loaded into your layers"
### BEGIN HIDDEN TESTS
y.sum().backward()
grads = [model.W_alpha.weight.grad, model.output_layer.weight.grad, model.encoder.parameters[0].grad,
         model.decoder.parameters[0].grad]
for name, grad in zip(["W_alpha", "the output layer", "the encoder", "the decoder"], grads):
    assert grad is not None and np.any(grad != 0), f"no gradient reaches {name} from the scores y"
from course.draws import hidden_rng

rng = hidden_rng("attention_seq2seq__matches_reference")  # this submission's own inputs
sizes = [(1, int(rng.integers(2, 6))), (int(rng.integers(12, 21)), int(rng.integers(1, 4)))]  # T, N
xs = [np.eye(12, dtype=np.float32)[rng.integers(0, 12, size=(T, N))] for T, N in sizes]
hidden_weights = chosen_weights(12, 6, 12, seed=int(rng.integers(2**31)))
references = [reference_attention(hidden_weights, x) for x in xs]
load_weights(model, hidden_weights)
model_inputs = [mg.tensor(x) for x in xs]
runs = [model(x) for x in model_inputs]
for i, (T, N) in enumerate(sizes):
    scores_ref, a_ref = references[i]
    y, a_ij = runs[i]
    assert y.shape == (T, N, 12) and a_ij.shape == (T, T, N), \
        f"on other lengths and batch sizes, the scores y and weights a_ij have shapes {y.shape} and {a_ij.shape}, " \
        "expected (T, N, K) and (T, T, N)"
    assert np.allclose(y.data, scores_ref, atol=1e-5) and np.allclose(a_ij, a_ref, atol=1e-5), \
        "on other lengths and batch sizes, the scores y or weights a_ij differ from the reference on the weights this "\
        "test loaded"
# inputs of another size than the classes: C < K = 12
C, T, N = int(rng.integers(5, 10)), int(rng.integers(3, 8)), int(rng.integers(2, 5))
x = np.eye(C, dtype=np.float32)[rng.integers(0, C, size=(T, N))]
weights = chosen_weights(C, 6, 12, seed=int(rng.integers(2**31)))
scores_ref = reference_attention(weights, x)[0]
np.random.seed(int(rng.integers(2**31)))
model = AttentionSeq2Seq(C, 6, 12)
try:
    load_weights(model, weights)
    y, a_ij = model(x.copy())
    error = None
except Exception as err:
    y = a_ij = None
    error = type(err).__name__
assert error is None, (
    "AttentionSeq2Seq fails when C differs from K: the encoder is RNN(C, D, K), the decoder RNN(K, D, K)"
)
assert y.shape == (T, N, 12), f"when C differs from K, the scores y have shape {y.shape}, expected (T, N, K)"
assert np.allclose(y.data, scores_ref, atol=1e-5), \
    "when C differs from K, the scores y differ from the reference on the weights this test loaded"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "training_text", "locked": true, "schema_version": 3, "solution": false}
# ## Training
#
# Train with $D = 25$, half the hidden size of the plain Seq2Seq, on batches of $N = 100$ sequences of 1 to 20 digits,
# for 8000 steps with Adam at its default rate (a tenth of it for the last 1000 steps, see below). Each step decodes with attention.
# The 8000 steps take about a minute on a laptop, a little longer on a machine that other work keeps busy; the cell
# prints a progress line every 30 s with the time per step and the time left.
#
# Watch the batch accuracy in the plot: it climbs much faster than in notebook 02. Late in training it can still
# drop, sometimes sharply, when a batch pushes the weights off course; it recovers within a few hundred steps, but a
# drop near the end would stay in the model you evaluate. So the last eighth of the steps (1000 here) runs at a tenth
# of the rate, `final_learning_rate` (`learning_rate(step, n_steps)` below): the weights settle instead of jumping. Without it, now and then a run ends
# a few points lower at the longest lengths.
#
# The settings live in one cell, `SETTINGS` below, which the training cell reads: change them there.

# %% nbgrader={"grade": false, "grade_id": "settings", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
# The training settings, in one place: the training cell below reads them.
SETTINGS = {
    "dim_recurrent": 25,  # D, the state size of the encoder and of the decoder
    "batch_size": 100,  # N, sequences per step
    "seq_len_min": 1,  # the fewest digits of a training sequence
    "seq_len_max": 20,  # the most digits of a training sequence
    "learning_rate": 1e-3,  # Adam's rate (its default)
    "final_learning_rate": 1e-4,  # Adam's rate from drop_at on: the weights settle
    "drop_at": 0.875,  # the share of the steps run at learning_rate (the last eighth at final_learning_rate)
    "n_steps": 8000,  # training steps in full mode
}


# %% nbgrader={"grade": false, "grade_id": "learning_rate", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
def learning_rate(step, n_steps):
    """Adam's learning rate at training step ``step`` of ``n_steps``: a tenth of it for the last eighth."""
    drop = step >= int(SETTINGS["drop_at"] * n_steps)
    return SETTINGS["final_learning_rate"] if drop else SETTINGS["learning_rate"]


# %% [markdown] nbgrader={"grade": false, "grade_id": "fused_text", "locked": true, "schema_version": 3, "solution": false}
# **Training on a fused operation.** Every decoder step calls your `attend`: a few MyGrad operations, each
# keeping its arrays for the backward pass. `course.ops.attend` computes the scores, the weights and the context
# as one operation, its gradients written by hand. The cell below runs it and your `attend` on the same random
# inputs; if they give the same weights, context and gradients, training runs it in place of yours inside
# `with fused:`, in less time. If not, training runs your own `attend`, and the cell says why. Every cell after
# training, the weights drawn too, runs your own.

# %% nbgrader={"grade": false, "grade_id": "fused", "locked": true, "schema_version": 3, "solution": false}
from course.fused import attention_training

fused = attention_training(globals())  # prints what training will run

# %% tags=["slow"]
np.random.seed(0)
model = AttentionSeq2Seq(dim_input=12, dim_recurrent=SETTINGS["dim_recurrent"], dim_output=12)
optimizer = Adam(model.parameters, learning_rate=SETTINGS["learning_rate"])

n_steps = pick(full=SETTINGS["n_steps"], quick=30)
batch_size = SETTINGS["batch_size"]

plotter, fig, ax = create_plot(["loss", "accuracy"])
with mg.mem_guard_off, fused:  # fused: course.ops.attend runs attend, if the cell above found it agrees
    for step in progress(n_steps):  # range(n_steps), with a progress line every 30 s
        optimizer.learning_rate = learning_rate(step, n_steps)
        x, target, _ = generate_batch(SETTINGS["seq_len_min"], SETTINGS["seq_len_max"], batch_size)
        scores, _ = model(x)
        loss, accuracy = loss_and_accuracy(scores, target)
        loss.backward()
        optimizer.step()
        plotter.set_train_batch({"loss": loss.item(), "accuracy": accuracy}, batch_size=batch_size)
plotter.plot()

# %% [markdown] nbgrader={"grade": false, "grade_id": "accuracy_text", "locked": true, "schema_version": 3, "solution": false}
# ## Accuracy by length
#
# The model returns a pair, so evaluate its scores with `lambda x: model(x)[0]`.

# %% tags=["slow"]
lengths = np.arange(1, 21)
accuracies = accuracy_by_length(lambda x: model(x)[0], 1, 20, n_per_length=pick(full=1000, quick=20))

fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
ax.plot(lengths, accuracies, marker="o")
ax.set_xlabel("number of digits $L = T - 1$")
ax.set_ylabel("whole-sequence accuracy")
ax.set_title("Seq2Seq with attention: reversing digit sequences")
ax.set_xticks(lengths)
ax.set_ylim(-0.03, 1.03)
ax.grid(alpha=0.3)
plt.show()

for L, a in zip(lengths, accuracies):
    print(f"L = {L:2d}: {a:.3f}")
print(f"lowest: {accuracies.min():.3f}")

# %% [markdown] nbgrader={"grade": false, "grade_id": "heatmap_text", "locked": true, "schema_version": 3, "solution": false}
# ## Where does the decoder look?
#
# Take one sequence of 12 digits and draw its $(T, T)$ attention weights: one row per decoder step, one column per
# encoder step, dark for weights near 0, bright for weights near 1. Each row is labelled `input → output`: the token the
# decoder reads at that step (`<S>`, then its own previous guess) and the token it writes. The columns are labelled with
# the source tokens. Look at where each row's bright cell sits compared with the column of the digit that row writes.

# %% tags=["slow"]
np.random.seed(1)
x_one, target_one, digits_one = generate_batch(12, 12, 1)  # one sequence of 12 digits
with mg.no_autodiff:
    y_one, a_one = model(x_one)
guess_one = np.argmax(mg.asarray(y_one), axis=-1)  # (T, 1)

rows, columns = reversal_labels(digits_one, guess_one)  # rows: "input → output" per decoder step; columns: the source
show_attention(a_one[:, :, 0], rows, columns,  # weights (t, T) of the one sequence
               query_axis="decoder step $t$: input → output", key_axis="source token (encoder step $j$)")
show_reversal((x_one, target_one, digits_one), guess_one)


# %% [markdown] nbgrader={"grade": false, "grade_id": "explorer_text", "locked": true, "schema_version": 3, "solution": false}
# ## Explore the trained model
#
# Pick a number of digits: the explorer draws a fresh sequence, shows what the model writes for it and its attention map.
# Press *new sequence* for another one of the same length. The slider goes up to 40 digits: try lengths the model
# was not trained on (it saw 1 to 20).

# %% tags=["explorer"]
from course.figures import sequence_explorer

sequence_explorer(
    make_sequence=lambda L: generate_batch(L, L, 1)[:2],  # (x, target) for one sequence of L digits
    decode=lambda x: mg.asarray(model(x)[0]).argmax(axis=-1),  # (T, 1) output tokens
    attention=lambda x: model(x)[1],  # (T, T, 1) weights
    token_names=[*"0123456789", "<S>", "<E>"],
    lengths=range(1, 41),  # up to twice the longest training length
)

# %% [markdown] nbgrader={"grade": false, "grade_id": "attention_pattern_question", "locked": true, "schema_version": 3, "solution": false}
# ## Part C: reading the attention weights (2 points)
#
# Describe the shape of the bright cells in the picture (for a trained model). Which encoder step $j$ does decoder step
# $t$ look at? Is it the column of the digit that step writes, or a neighbour of it (look at the `<S>` row)? Why does the
# encoder state there give the decoder what it needs? What would you expect to see instead if the task were to *copy*
# the sequence rather than reverse it? Answer in a few sentences below.
#
# ### BEGIN MARK SCHEME
#
# **For the grader** (this part is removed from the student version and from the feedback).
#
# *Model answer.* The bright cells form an anti-diagonal from the top right to the bottom left: at each decoder step
# almost all the weight sits on one encoder step, and that step moves one column to the left per decoder step, as the
# output walks backwards through the source. It is not the column of the digit being written but the one just after
# it: the `<S>` row, which writes the last digit, reads the `<E>` column, and every later row reads the column holding
# its own input token. Decoder step $t$ attends to encoder step $j = T - t + 1$, while it writes $x_{T-t}$.
#
# That is still exactly what it needs. The decoder state has just read $s_t = x_{T-t+1}$ (its previous output), so the
# easiest match is the encoder state that has just read the same token, $h^e_{T-t+1}$; and that state was computed one
# step after reading $x_{T-t}$, so it still carries the digit to write. The context $c_t$ hands that digit to the output
# layer straight from where it was read, however long the sequence is, instead of relying on $h^e_T$ to remember it.
# Nobody told the model where to look: the alignment makes the loss small. For copying, step $t$ needs $x_t$, so the
# bright cells would run down the main diagonal instead.
#
# *Rubric (2 points).*
#
# - 1 point: an anti-diagonal of (nearly) one-hot rows, and the column named as the picture shows it: one to the right
#   of the digit written, $j = T - t + 1$, with the `<S>` row on `<E>`. If the student's own picture lines up on the
#   digit's column ($j = T - t$), accept that too. The graded notebook shows only the quick-mode run's picture, so
#   take the student's description of their own full run at its word when it hangs together.
# - 1 point: why that state helps (it has read the digit to write, one step earlier or at that step, and hands it over
#   directly rather than through $h^e_T$), and the main diagonal for copying.
#
# ### END MARK SCHEME

# %% [markdown] nbgrader={"grade": true, "grade_id": "attention_pattern", "locked": false, "points": 2, "schema_version": 3, "solution": true}
# The model answer and the rubric are in the mark scheme of the question above.

# %% [markdown] nbgrader={"grade": false, "grade_id": "exercises_text", "locked": true, "schema_version": 3, "solution": false}
# ## Exercises
#
# These are not graded. Each asks a question the notebook leaves open; some ask you to change the code and measure.
#
# 1. Replace the score $(h^e_j W_\alpha) \cdot h^d_t$ by the plain dot product $h^e_j \cdot h^d_t$ (no $W_\alpha$; Luong's
#    *dot* score), then by Bahdanau's *additive* score $v^\top \tanh(h^e_j W_1 + h^d_t W_2)$. Train each and compare the accuracy curves and the
#    training time.
# 2. Attend with the state *before* the step, $h^d_{t-1}$, and give the context to the decoder RNN as part of its input
#    instead of to the output layer (Bahdanau's order). Does the model still learn? Where do the bright cells of the map move?
# 3. The model was trained on 1 to 20 digits. Measure its accuracy for 21 to 40 digits (`accuracy_by_length` takes the
#    lengths). Where does it break, and what does the explorer show for those lengths?
# 4. Redefine `generate_batch` in a new cell so that its target is a *copy* of the digits (then `<E>`), and train again. Check your answer to Part C: where do
#    the bright cells sit now?
# 5. How small can $D$ be? Train with `dim_recurrent` 10 and 5 and compare with notebook 02's Seq2Seq at the same $D$.
# 6. Adapt notebook 02's `beam_search` to this model (each decoder step now also attends and applies the output layer).
#    Is there anything left for it to repair?

# %% [markdown] nbgrader={"grade": false, "grade_id": "recap_text", "locked": true, "schema_version": 3, "solution": false}
# ## Recap
#
# - `attend` scores every encoder state against the decoder state, $e_t = H^e W_\alpha h^d_t$, turns the scores into
#   weights with a softmax over the encoder steps, and returns the context $c_t = \sum_j \alpha_{t,j} h^e_j$.
# - `AttentionSeq2Seq` combines each decoder step's scores with its context, $\hat y_t = [y_t, c_t] W_o + b_o$, so the
#   decoder reads the source directly instead of through $h^e_T$ alone. It reverses sequences of every length it was
#   trained on, with half the hidden size of the plain Seq2Seq.
# - The weights can be read: the attention map shows which encoder step each decoder step draws on. Part C asks
#   you to describe that pattern for reversal and explain it.
#
# The last notebook takes the idea to its end: the **Transformer** drops the RNNs and builds a model from attention
# alone, with queries, keys and values, several heads, and positional encodings to stand in for the order that the
# recurrence used to provide.
