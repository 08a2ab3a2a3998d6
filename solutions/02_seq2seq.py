# %% [markdown] nbgrader={"grade": false, "grade_id": "intro_text", "locked": true, "schema_version": 3, "solution": false}
# # Seq2Seq: one RNN reads, another one writes
#
# The plain RNN of notebook 01 reversed a single digit and almost never more. Its target at step $t$ is
# $d_{T-t}$, the digit at position $T - t$ of the input. Here two RNNs share the work: one reads the source,
# the other writes the reversal. Part D asks you to compare the two models and explain the difference.
#
# In this notebook, we:
#
# - turn a step's scores into the next input of a decoder (greedy decoding);
# - build a **Seq2Seq** model: an *encoder* RNN reads the digits into its last hidden state, and a *decoder* RNN
#   started from that state writes the reversal one token at a time;
# - train it on the reversal task of notebook 01 and measure its whole-sequence accuracy for every length;
# - replace greedy decoding by **beam search**, which keeps several candidate outputs, and measure what it buys;
# - measure where its accuracy falls off with length, which is where attention (notebook 03) comes in.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
import numpy as np
import mygrad as mg
import matplotlib.pyplot as plt

from mynn.layers.dense import dense
from mynn.optimizers.adam import Adam
from mygrad.nnet import glorot_normal, softmax_crossentropy

from course.runtime import pick
from course.plotting import setup_backend, create_plot
from course.sequence_pictures import show_reversal

setup_backend()

# %% [markdown] nbgrader={"grade": false, "grade_id": "given_text", "locked": true, "schema_version": 3, "solution": false}
# ## Given code from notebook 01
#
# The cell below holds the reference solutions of notebook 01, so that this notebook does not depend on your
# answers there: `generate_batch`, the class `RNN`, `loss_and_accuracy` and `accuracy_by_length`,
# plus the token indices `START_TOKEN = 10` (`<S>`) and `END_TOKEN = 11` (`<E>`). Run it; it is locked.
#
# Two facts about `RNN` matter here. A call `rnn(x, h)` with `x` of shape $(T, N, C)$ and a start state `h`
# of shape $(1, N, D)$ returns the scores $(T, N, K)$ and the states $h_1, \dots, h_T$ as $(T, N, D)$.
# With $T = 1$ that is exactly one step of the recurrence, and the state it returns, of shape $(1, N, D)$,
# is ready to be passed to the next call.

# %% course={"given": ["01_rnn:generate_batch", "01_rnn:rnn", "01_rnn:loss_and_accuracy", "01_rnn:accuracy_by_length"]} nbgrader={"grade": false, "grade_id": "given_code", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
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

# --- from 01_rnn: rnn ---
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
        self.dim_recurrent = dim_recurrent
        self.input_layer = dense(dim_input, dim_recurrent, weight_initializer=glorot_normal)
        self.recurrent_layer = dense(
            dim_recurrent, dim_recurrent, weight_initializer=glorot_normal, bias=False
        )
        self.output_layer = dense(dim_recurrent, dim_output, weight_initializer=glorot_normal)

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

    @property
    def parameters(self):
        """All learnable tensors of the model, as a tuple (for the optimizer).

        Returns
        -------
        Tuple[mygrad.Tensor, ...]
        """
        return self.input_layer.parameters + self.recurrent_layer.parameters + self.output_layer.parameters

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



# %% [markdown] nbgrader={"grade": false, "grade_id": "encoder_decoder_text", "locked": true, "schema_version": 3, "solution": false}
# ## Encoder and decoder
#
# The **encoder** is an RNN run over the whole source $x_1, \dots, x_T$ (the digits, then `<E>`).
# Its scores are not needed; its states are:
#
# $$
# h^e_1, \dots, h^e_T = \operatorname{RNN}_\text{enc}(x_1, \dots, x_T).
# $$
#
# Of these states, only the last one, $h^e_T$, is passed on to the decoder.
#
# The **decoder** is a second RNN, with its own weights. It starts from the encoder's summary and from the
# start token, and it runs one step at a time because each step's input is the previous step's answer:
#
# $$
# h^d_0 = h^e_T, \qquad s_1 = \text{one-hot}(\langle S \rangle),
# $$
#
# $$
# y_t, h^d_t = \operatorname{RNN}_\text{dec}(s_t, h^d_{t-1}), \qquad
# s_{t+1} = \text{one-hot}\Big(\operatorname*{arg\,max}_k\, y_{t,k}\Big), \qquad t = 1, \dots, T.
# $$

# %% [markdown] nbgrader={"grade": false, "grade_id": "greedy_text", "locked": true, "schema_version": 3, "solution": false}
# Feeding back the best-scoring class is called **greedy decoding**. The decoder runs exactly $T$ steps, the
# length of the target, so its scores line up with the target token by token and `loss_and_accuracy` applies
# unchanged. (A decoder for real text would stop at its first `<E>`; we know the length, so we skip that.)
#
# The model returns the scores $y_1, \dots, y_T$, not the one-hot guesses: the loss needs scores, and
# `argmax` has no gradient. The guesses are inputs only.
#
# A reversal of `3 1 4`, with $T = 4$:
#
# | decoder step $t$ | 1 | 2 | 3 | 4 |
# |---|---|---|---|---|
# | input $s_t$ | `<S>` | `4` (its guess at $t=1$) | `1` | `3` |
# | wanted output | `4` | `1` | `3` | `<E>` |

# %% [markdown] nbgrader={"grade": false, "grade_id": "one_hot_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part A: the next input of the decoder (2 points)
#
# For a batch, one step's scores $y_t$ have shape $(1, N, K)$. The next input holds, for each of the $N$
# sequences, a one-hot vector with a 1 at that sequence's largest score:
#
# $$
# s_{t+1, n, k} = \begin{cases} 1 & \text{if } k = \operatorname*{arg\,max}_{k'} y_{t, n, k'} \\ 0 & \text{otherwise.} \end{cases}
# $$
#
# No gradient flows through this choice, so work with plain NumPy: `mg.asarray(y_t)` is the array behind a
# tensor (and leaves an array as it is). Row $i$ of the identity matrix `np.eye(K)` is the one-hot vector of
# class $i$, so indexing `np.eye(K)` with an integer array of labels one-hot encodes all of them at once.
#
# Complete `one_hot_encode_prediction`. Return a `float32` NumPy array: it is the decoder's next input, and a
# `float64` input would turn the whole decoder into `float64`.

# %% nbgrader={"grade": false, "grade_id": "one_hot_encode_prediction", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
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
    ### BEGIN SOLUTION
    scores = mg.asarray(y_t)  # the NumPy array behind the tensor: no graph
    best = scores.argmax(axis=-1)  # (1, N): the winning class of each sequence
    return np.eye(scores.shape[-1], dtype=np.float32)[best]  # row `best` of the identity
    ### END SOLUTION


# %%
# Try it: two sequences, four classes. The winners are class 1 and class 0.
scores_demo = mg.tensor([[[0.3, 2.0, -1.0, 0.5], [4.0, 0.0, 1.0, 3.9]]])
s_demo = one_hot_encode_prediction(scores_demo)
print(s_demo, s_demo.shape, s_demo.dtype, type(s_demo).__name__)

# %% course={"task": "one_hot_encode_prediction"} nbgrader={"grade": true, "grade_id": "one_hot_encode_prediction__marks_the_best_class", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that one_hot_encode_prediction puts a single 1 at each sequence's largest score
scores = np.array([[[0.3, 2.0, -1.0, 0.5], [4.0, 0.0, 1.0, 3.9], [-2.0, -3.0, -0.5, -1.0]]], dtype=np.float32)
expected = np.array([[[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0]]], dtype=np.float32)
s = one_hot_encode_prediction(scores)
assert np.shape(s) == (1, 3, 4), f"shape {np.shape(s)}, expected (1, N, K) = (1, 3, 4)"
assert np.array_equal(np.asarray(s), expected), f"got\n{np.asarray(s)}\nexpected\n{expected}"
### BEGIN HIDDEN TESTS
rng = np.random.default_rng(0)
cases = [rng.normal(size=shape).astype(np.float32) for shape in [(1, 7, 12), (1, 5, 3), (1, 1, 12), (1, 12, 12)]]
wanted = [(scores.shape, np.eye(scores.shape[-1])[scores.argmax(axis=-1)]) for scores in cases]
answers = [np.asarray(one_hot_encode_prediction(mg.tensor(scores))) for scores in cases]
for (shape, want), s in zip(wanted, answers, strict=True):
    assert s.shape == shape, f"scores of shape {shape} gave an answer of shape {s.shape}"
    assert np.array_equal(s, want), \
        f"for random scores of shape {shape}, the 1s are not at each sequence's largest score"
### END HIDDEN TESTS

# %% course={"task": "one_hot_encode_prediction"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "one_hot_encode_prediction__float32_array", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that one_hot_encode_prediction returns a float32 NumPy array, for a tensor input too
y = mg.tensor(np.random.default_rng(1).normal(size=(1, 4, 6)).astype(np.float32))
s = one_hot_encode_prediction(y)
assert isinstance(s, np.ndarray) and not isinstance(s, mg.Tensor), f"return a NumPy array, not {type(s)}"
assert s.dtype == np.float32, f"dtype {s.dtype}, expected float32"
assert s.shape == (1, 4, 6), f"shape {s.shape}, expected (1, 4, 6)"
assert np.array_equal(s.sum(axis=-1), np.ones((1, 4))), "each sequence needs exactly one 1"
### BEGIN HIDDEN TESTS
y = mg.tensor(np.random.default_rng(2).normal(size=(1, 9, 12)), dtype=np.float64)
best = y.data.argmax(axis=-1)
s = one_hot_encode_prediction(y * 2)
assert type(s) is np.ndarray and s.dtype == np.float32 and s.shape == (1, 9, 12), \
    f"float64 scores of shape (1, 9, 12) gave a {type(s).__name__} of dtype {getattr(s, 'dtype', None)}; expected a float32 NumPy array"
s = one_hot_encode_prediction(y.data)
assert type(s) is np.ndarray and s.dtype == np.float32, \
    f"a float64 NumPy array as input gave a {type(s).__name__} of dtype {getattr(s, 'dtype', None)}; expected a float32 NumPy array"
assert np.array_equal(s.argmax(axis=-1), best), "for a NumPy array as input, the 1s are not at the largest scores"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "seq2seq_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part B: the Seq2Seq model (4 points)
#
# Put the pieces together in a class with two `RNN` attributes, `self.encoder` and `self.decoder`.
#
# - The encoder reads inputs of size $C$. The decoder reads its own guesses, one-hot vectors over the $K$
#   classes, so its input size is $K$. (Here $C = K = 12$, and `<S>` is class `START_TOKEN` of that vocabulary.)
#   Both map to $K$ scores through $D$ hidden units.
# - In `__call__`, run the encoder once over all of `x`. Keep its last state as a $(1, N, D)$ slice,
#   `enc_h[-1:]` (indexing with `-1` would drop the time axis).
# - Start the decoder from that state and from a `float32` one-hot `<S>` input of shape $(1, N, K)$. Then
#   loop $T$ times: one decoder call on a single step, keep its scores in a list, feed the one-hot of its
#   guess back in. Join the list once at the end with `mg.concatenate(..., axis=0)`.
#
# Complete the class `Seq2Seq`, including the `parameters` property, which the optimizer uses.

# %% [markdown] nbgrader={"grade": false, "grade_id": "encoder_decoder_picture_text", "locked": true, "schema_version": 3, "solution": false}
# ![The encoder RNN reads x_1 to x_T; its last state h^e_T starts the decoder RNN, whose one-hot arg-max guess at each step is its next input](figures/encoder_decoder.svg)
#
# *Figure: the class you write, drawn from the equations of "Encoder and decoder": $h^d_0 = h^e_T$ is the thick arrow, and $s_{t+1} = \text{one-hot}(\arg\max_k y_{t,k})$ the loop from each output back to the next input.*

# %% nbgrader={"grade": false, "grade_id": "seq2seq", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
class Seq2Seq:
    """An encoder RNN reads a sequence; a decoder RNN writes the output with greedy decoding."""

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
        ### BEGIN SOLUTION
        self.dim_output = dim_output
        self.encoder = RNN(dim_input, dim_recurrent, dim_output)
        self.decoder = RNN(dim_output, dim_recurrent, dim_output)
        ### END SOLUTION

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
        ### BEGIN SOLUTION
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
        ### END SOLUTION

    @property
    def parameters(self):
        """All learnable tensors of both RNNs, as a tuple (for the optimizer).

        Returns
        -------
        Tuple[mygrad.Tensor, ...]
        """
        ### BEGIN SOLUTION
        return self.encoder.parameters + self.decoder.parameters
        ### END SOLUTION


# %%
# Try it: an untrained Seq2Seq on two sequences of three digits.
np.random.seed(0)
model_demo = Seq2Seq(dim_input=12, dim_recurrent=8, dim_output=12)
x_demo, target_demo, digits_demo = generate_batch(3, 3, 2)
y_demo = model_demo(x_demo)
print("scores:", y_demo.shape, y_demo.dtype)  # expect (4, 2, 12) float32
print("guesses (one column per sequence):", y_demo.argmax(axis=-1), sep="\n")
print("target:", target_demo, sep="\n")


# %% course={"task": "seq2seq"} nbgrader={"grade": true, "grade_id": "seq2seq__greedy_decoding", "locked": true, "points": 2, "schema_version": 3, "solution": false}
# Check that the decoder starts from the encoder's last state and <S>, then feeds back its own guesses
class StubEncoder:
    # stands in for the encoder RNN: fixed states, and it remembers what it read
    def __init__(self, states):
        self.states, self.inputs = mg.tensor(states), []

    def __call__(self, x, h=None):
        self.inputs.append(np.array(mg.asarray(x)))
        return mg.zeros(x.shape[:2] + (12,), dtype=np.float32), self.states


class StubDecoder:
    # stands in for the decoder RNN: scores that depend on the input token, so the guesses change from
    # step to step; it records the input and the state of every call
    def __init__(self, rng, D):
        self.table = rng.normal(size=(12, 12)).astype(np.float32)
        self.mix = rng.normal(size=(D, 12)).astype(np.float32)
        self.inputs, self.states = [], []

    def __call__(self, x, h=None):
        assert h is not None, "the decoder must be given a start state"
        self.inputs.append(np.array(mg.asarray(x)))
        self.states.append(np.array(mg.asarray(h)))
        h_new = mg.tanh(h + np.float32(0.5))
        return mg.matmul(x, self.table) + np.float32(0.1) * mg.matmul(h_new, self.mix), h_new


def make_stubs(T, N, D, seed):
    # the two stubs and the source x of one test, all drawn from `seed`
    rng = np.random.default_rng(seed)
    encoder = StubEncoder(rng.normal(size=(T, N, D)).astype(np.float32))
    decoder = StubDecoder(rng, D)
    x = np.eye(12, dtype=np.float32)[rng.integers(0, 10, size=(T, N))]
    return encoder, decoder, x


def run_with_stubs(T, N, D, seed):
    # your Seq2Seq with the stubs in place of its RNNs: what each stub read, and what the model returned
    model = Seq2Seq(12, D, 12)
    model.encoder, model.decoder, x = make_stubs(T, N, D, seed)
    y = model(x)
    return model.encoder.inputs, model.decoder.inputs, model.decoder.states, y


def expected_decoding(T, N, D, seed):
    # the greedy recurrence, written out with the same stubs: the source, the decoder's inputs and states, the scores
    encoder, decoder, x = make_stubs(T, N, D, seed)
    s, h = np.eye(12, dtype=np.float32)[np.full((1, N), 10)], encoder.states.data[-1:]
    inputs, states, scores = [], [], []
    for _ in range(T):
        inputs.append(s)
        states.append(h)
        h = np.tanh(h + np.float32(0.5))
        y = s @ decoder.table + np.float32(0.1) * (h @ decoder.mix)
        scores.append(y)
        s = np.eye(12, dtype=np.float32)[y.argmax(axis=-1)]
    return x, inputs, states, np.concatenate(scores)


x, inputs, states, scores = expected_decoding(T=5, N=3, D=4, seed=0)
enc_inputs, dec_inputs, dec_states, y = run_with_stubs(T=5, N=3, D=4, seed=0)
assert len(enc_inputs) == 1 and np.array_equal(enc_inputs[0], x), \
    "run the encoder once, on the whole input x"
assert len(dec_inputs) == 5, f"the decoder ran {len(dec_inputs)} steps, expected T = 5"
assert dec_inputs[0].shape == (1, 3, 12), \
    f"decoder input of shape {dec_inputs[0].shape}, expected (1, N, K) = (1, 3, 12)"
assert dec_inputs[0].dtype == np.float32, "the <S> input must be float32"
assert np.array_equal(dec_inputs[0], inputs[0]), "the first decoder input must be one-hot <S> (index 10)"
assert dec_states[0].shape == (1, 3, 4), \
    f"start state of shape {dec_states[0].shape}, expected (1, N, D) = (1, 3, 4)"
assert np.allclose(dec_states[0], states[0]), "the decoder must start from the encoder's LAST state"
for t in range(1, 5):
    assert np.array_equal(dec_inputs[t], inputs[t]), \
        f"decoder input at step {t + 1} must be the one-hot vector of the previous step's best class"
    assert np.allclose(dec_states[t], states[t], atol=1e-6), \
        f"step {t + 1} must start from the state returned by step {t}"
assert isinstance(y, mg.Tensor) and y.shape == (5, 3, 12), "return the scores as a (T, N, K) tensor"
assert np.allclose(y.data, scores, atol=1e-5), "return the decoder's scores y_1, ..., y_T in order"
### BEGIN HIDDEN TESTS
cases = [(1, 2, 3, 1), (9, 1, 5, 2), (12, 6, 2, 3)]  # T, N, D, seed
expected = [(T, N, D, expected_decoding(T, N, D, seed)) for T, N, D, seed in cases]
runs = [run_with_stubs(*case) for case in cases]
for (T, N, D, wanted), got in zip(expected, runs, strict=True):
    x, inputs, states, scores = wanted
    enc_inputs, dec_inputs, dec_states, y = got
    assert len(dec_inputs) == T, f"for T = {T}, the decoder ran {len(dec_inputs)} steps"
    for t in range(T):
        assert np.array_equal(dec_inputs[t], inputs[t]), \
            f"T = {T}: decoder input at step {t + 1} must be <S> at step 1, then the one-hot of the previous best class"
        assert dec_inputs[t].dtype == np.float32, \
            f"T = {T}: decoder input at step {t + 1} is {dec_inputs[t].dtype}, expected float32"
        assert dec_states[t].shape == (1, N, D), \
            f"T = {T}: the state passed at step {t + 1} has shape {dec_states[t].shape}, expected (1, N, D) = {(1, N, D)}"
        assert np.allclose(dec_states[t], states[t], atol=1e-6), \
            f"T = {T}: step {t + 1} must start from the state returned by the step before (the encoder's last state at step 1)"
    assert y.shape == (T, N, 12) and np.allclose(y.data, scores, atol=1e-5), \
        f"T = {T}, N = {N}: expected the decoder's scores y_1, ..., y_T as a {(T, N, 12)} tensor, got shape {y.shape}"
# the guesses really change along the way, so a fixed input could not pass
assert len({int(np.argmax(s[0, 0])) for s in inputs}) > 2, "internal check: the stub decoder's guesses should change"
### END HIDDEN TESTS

# %% course={"task": "seq2seq"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "seq2seq__matches_reference", "locked": true, "points": 2, "schema_version": 3, "solution": false}
# Check that Seq2Seq with real RNNs matches a step-by-step reference and trains both RNNs
def reference_seq2seq(model, x):
    # the same computation, one decoder step at a time, with the model's own RNNs
    T, N = x.shape[:2]
    _, enc_h = model.encoder(x)
    h, s, out = enc_h[-1:], np.zeros((1, N, 12), np.float32), []
    s[..., 10] = 1
    for _ in range(T):
        y_t, h = model.decoder(s, h)
        out.append(y_t.data)
        s = np.eye(12, dtype=np.float32)[y_t.data.argmax(axis=-1)]
    return np.concatenate(out)


np.random.seed(0)
model = Seq2Seq(12, 6, 12)
x = np.eye(12, dtype=np.float32)[np.random.default_rng(0).integers(0, 12, size=(7, 4))]
y = model(x)
reference = reference_seq2seq(model, x)
assert isinstance(y, mg.Tensor), f"return a MyGrad tensor, not {type(y)}"
assert y.shape == (7, 4, 12), f"scores of shape {y.shape}, expected (T, N, K) = (7, 4, 12)"
assert y.dtype == np.float32, f"scores are {y.dtype}, expected float32"
assert reference.shape == (7, 4, 12), \
    f"the reference, run on your model's decoder, gives scores of shape {reference.shape}, expected (T, N, K) = (7, 4, 12)"
assert np.allclose(y.data, reference, atol=1e-5), "scores differ from the reference"
params = model.parameters
assert isinstance(params, tuple), "parameters must be a tuple (a property, not a method)"
ids = {id(p) for p in params}
encoder_ids = {id(p) for p in model.encoder.parameters}
decoder_ids = {id(p) for p in model.decoder.parameters}
assert encoder_ids <= ids, "parameters must include the encoder's"
assert decoder_ids <= ids, "parameters must include the decoder's"
### BEGIN HIDDEN TESTS
decoder_is_encoder = model.decoder is model.encoder
sizes = [len(params), len(model.encoder.parameters), len(model.decoder.parameters)]
assert not decoder_is_encoder and not encoder_ids & decoder_ids, \
    "the decoder shares weights with the encoder: create two RNNs, each with its own weights"
assert sizes[0] == len(ids) == sizes[1] + sizes[2], \
    f"parameters must list every tensor of both RNNs exactly once; it holds {sizes[0]} entries, {len(ids)} distinct"
y.sum().backward()
encoder_grad = model.encoder.parameters[0].grad
assert encoder_grad is not None and np.any(encoder_grad != 0), \
    "no gradient reaches the encoder: pass its state to the decoder as a tensor"
cases = [(1, 3), (15, 2)]  # T, N
sources = [np.eye(12, dtype=np.float32)[np.random.default_rng(T).integers(0, 12, size=(T, N))] for T, N in cases]
outputs = [(model(mg.tensor(x)), reference_seq2seq(model, x)) for x in sources]
for (T, N), (y, reference) in zip(cases, outputs, strict=True):
    assert y.shape == (T, N, 12), f"for T = {T}, N = {N} the scores have shape {y.shape}, expected {(T, N, 12)}"
    assert reference.shape == (T, N, 12), \
        f"for T = {T}, N = {N} the reference, run on your model's decoder, gives scores of shape {reference.shape}"
    assert np.allclose(y.data, reference, atol=1e-5), f"for T = {T}, N = {N} the scores differ from the reference"
# inputs of another size than the classes: C = 7, K = 12
np.random.seed(2)
model = Seq2Seq(7, 6, 12)
x = np.eye(7, dtype=np.float32)[np.random.default_rng(5).integers(0, 7, size=(5, 3))]
try:
    y = model(x)
    reference = reference_seq2seq(model, x)
    failure = None
except Exception as err:
    y = reference = None
    failure = type(err).__name__
assert failure is None, (
    f"Seq2Seq(7, 6, 12) fails on inputs with C = 7 ({failure}): the encoder is RNN(C, D, K), "
    "the decoder RNN(K, D, K)"
)
assert y.shape == (5, 3, 12), f"with C = 7 and K = 12 the scores have shape {y.shape}, expected (T, N, K) = (5, 3, 12)"
assert reference.shape == (5, 3, 12), \
    f"with C = 7 and K = 12 the reference, run on your model's decoder, gives scores of shape {reference.shape}"
assert np.allclose(y.data, reference, atol=1e-5), "with C = 7 and K = 12 the scores differ from the reference"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "training_text", "locked": true, "schema_version": 3, "solution": false}
# ## Training
#
# Train a Seq2Seq model with $D = 50$ on batches of $N = 100$ sequences of 1 to 20 digits, with Adam at its
# default settings, for 10 000 steps. Expect one to three minutes on the 2-core machine the course was measured
# on (the longer end when other work is running). The plot follows the loss and the whole-sequence accuracy of
# each batch. Every batch draws one length for all its sequences, so the accuracy jumps from batch to batch:
# a batch of short sequences is easy, a batch of long ones is hard.
#
# The settings live in one cell, `SETTINGS` below, which the training cell reads: change them there.

# %% nbgrader={"grade": false, "grade_id": "settings", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
# The training settings, in one place: the training cell below reads them.
SETTINGS = {
    "dim_recurrent": 50,  # D, the state size of the encoder and of the decoder
    "batch_size": 100,  # N, sequences per step
    "seq_len_min": 1,  # the fewest digits of a training sequence
    "seq_len_max": 20,  # the most digits of a training sequence
    "learning_rate": 1e-3,  # Adam's rate (its default)
    "n_steps": 10_000,  # training steps in full mode
}

# %% tags=["slow"]
np.random.seed(0)
model = Seq2Seq(dim_input=12, dim_recurrent=SETTINGS["dim_recurrent"], dim_output=12)
optimizer = Adam(model.parameters, learning_rate=SETTINGS["learning_rate"])

n_steps = pick(full=SETTINGS["n_steps"], quick=30)
batch_size = SETTINGS["batch_size"]

plotter, fig, ax = create_plot(["loss", "accuracy"])
with mg.mem_guard_off:
    for step in range(n_steps):
        x, target, _ = generate_batch(SETTINGS["seq_len_min"], SETTINGS["seq_len_max"], batch_size)
        loss, accuracy = loss_and_accuracy(model(x), target)
        loss.backward()
        optimizer.step()
        plotter.set_train_batch({"loss": loss.item(), "accuracy": accuracy}, batch_size=batch_size)
plotter.plot()

# %% [markdown] nbgrader={"grade": false, "grade_id": "accuracy_text", "locked": true, "schema_version": 3, "solution": false}
# ## Accuracy by length
#
# How often does the trained model reverse a sequence of $L$ digits without a single mistake?
# `accuracy_by_length` draws 1000 sequences of each length (fewer in quick mode).

# %% tags=["slow"]
lengths = np.arange(1, 21)
accuracies = accuracy_by_length(model, 1, 20, n_per_length=pick(full=1000, quick=20))

fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
ax.plot(lengths, accuracies, marker="o")
ax.set_xlabel("number of digits $L = T - 1$")
ax.set_ylabel("whole-sequence accuracy")
ax.set_title("Seq2Seq: reversing digit sequences")
ax.set_xticks(lengths)
ax.set_ylim(-0.03, 1.03)
ax.grid(alpha=0.3)
plt.show()

for L, a in zip(lengths, accuracies):
    print(f"L = {L:2d}: {a:.3f}")

# %% [markdown] nbgrader={"grade": false, "grade_id": "examples_text", "locked": true, "schema_version": 3, "solution": false}
# A few reversals by the trained model, a short one and two long ones. A wrong token is marked with `^`.

# %% tags=["slow"]
np.random.seed(2)
for length in (5, 17, 17):
    batch = generate_batch(length, length, 1)  # (x, target, digits) of one sequence
    show_reversal(batch, model(batch[0]))  # source, target, output; ^ under every wrong token


# %% [markdown] nbgrader={"grade": false, "grade_id": "beam_search_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part C: beam search (3 points)
#
# Greedy decoding commits to one token per step and never takes it back. One wrong pick, as in the long reversals
# above, costs the whole sequence, and the wrong token is also the next step's input. Often the right token was a
# close second at that step, and the model itself would have rated the right output as a whole more likely. Its probability of an output $s_1, \dots, s_T$ is a product over the steps, so its
# **log-probability** is a sum:
#
# $$
# \log p(s_1, \dots, s_T \mid x) = \sum_{t=1}^{T} \log p(s_t \mid s_1, \dots, s_{t-1}, x), \qquad
# \log p(s_t = k \mid \dots) = y_{t,k} - \log \sum_{k'} \exp y_{t,k'} .
# $$
#
# The second formula is the **log-softmax** of the step's scores (`mg.nnet.logsoftmax`). Raw scores are not
# log-probabilities: their scale differs from step to step and from one partial output to another.
#
# Checking all $K^T$ outputs is out of reach ($12^{21}$ for 20 digits). **Beam search** keeps the $B$ most likely
# partial outputs (the *beam*, $B$ its width). At each step it extends every one of them by each of the $K$ tokens,
# adds the token's log-probability to the running sum, and keeps the $B$ best of all $B \cdot K$ candidates, whichever
# beams they come from. After $T$ steps it returns the best one. With $B = 1$ this is greedy decoding.
# Sums of logs rank outputs exactly as products of probabilities do, and a product of 21 small numbers can
# underflow; a sum cannot.

# %% [markdown] nbgrader={"grade": false, "grade_id": "beam_search_picture_text", "locked": true, "schema_version": 3, "solution": false}
# ![A beam of width 2 over three steps: at each step the two partial outputs with the largest summed log-probability are kept, the others pruned](figures/beam_search.svg)
#
# *Figure: beam search with $B = 2$; each number beside a box is the running sum $\sum_t \log p(s_t \mid \dots)$, and each step keeps the two largest of all candidates, so after two steps the beam's `B C` (−1.0) is ahead of greedy's `A A` (−2.1), although greedy's first pick `A` (−0.7)
# looked better, and `B C <E>` (−1.1) wins.*

# %% [markdown] nbgrader={"grade": false, "grade_id": "beam_search_batch_text", "locked": true, "schema_version": 3, "solution": false}
# ### On a batch
#
# Run the decoder on all $N \cdot B$ partial outputs at once: row $n B + b$ of the decoder's batch axis holds beam $b$
# of sequence $n$. No gradient is needed: wrap the work of `beam_search` in `with mg.no_autodiff:` and keep
# NumPy arrays (`mg.asarray`):
#
# | quantity | shape | meaning |
# |---|---|---|
# | `total` | $(N, B)$ | the summed log-probability of each kept output |
# | `tokens` | $(t, N, B)$ | the tokens each kept output has written so far |
# | `h` | $(1, N B, D)$ | each kept output's decoder state |
# | `candidates` | $(N, B K)$ | `total[:, :, None] + log_p`, with `log_p` reshaped to $(N, B, K)$ |
#
# - **Start** with $B$ copies of $h^e_T$ and of `<S>` per sequence, and `total` $= (0, -\infty, \dots, -\infty)$:
#   the copies are the same output, and with equal totals the first step would keep the same token $B$ times.
# - **Choose** the $B$ largest of each row of `candidates` (`np.argsort` on `-candidates`). Entry `i` of a row
#   is beam `i // K` extended by token `i % K`.
# - **Reorder.** A kept candidate continues the history and the state of the beam it came from: index `tokens`
#   and the new states with that beam (`rows = np.arange(N)[:, None]` picks each sequence's own), then append the token.
#
# Complete `beam_search`. It returns the best output of each sequence, shape $(T, N)$, and its log-probability,
# shape $(N,)$. The model is not changed: use `model.encoder` and `model.decoder` directly.

# %% nbgrader={"grade": false, "grade_id": "beam_search", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
def beam_search(model, x, width):
    """Decode a batch with beam search: keep the `width` best partial outputs at every step.

    Parameters
    ----------
    model : Seq2Seq
        A model with the attributes `encoder` and `decoder` (two `RNN`s).
    x : Union[numpy.ndarray, mygrad.Tensor], shape=(T, N, C)
        The one-hot source sequences, end token included.
    width : int
        The beam width B: how many partial outputs each sequence keeps.

    Returns
    -------
    tokens : numpy.ndarray, shape=(T, N), integer dtype
        The best output of each sequence: the one with the largest log-probability.
    log_prob : numpy.ndarray, shape=(N,)
        Its log-probability, the sum of log p(token) over the T steps.
    """
    T, N = x.shape[:2]
    K = model.decoder.input_layer.weight.shape[0]  # the decoder reads one-hot vectors over the K classes
    ### BEGIN SOLUTION
    rows = np.arange(N)[:, np.newaxis]  # (N, 1): picks each sequence's own beams
    with mg.no_autodiff:
        _, enc_h = model.encoder(x)
        D = enc_h.shape[-1]
        h = np.repeat(mg.asarray(enc_h)[-1], width, axis=0)[np.newaxis]  # (1, N * B, D), beam b of n at row n * B + b
        s = np.zeros((1, N * width, K), dtype=np.float32)
        s[:, :, START_TOKEN] = 1
        total = np.full((N, width), -np.inf)  # log-probability of each kept output
        total[:, 0] = 0  # one real start per sequence: its copies would pick the same tokens
        tokens = np.zeros((0, N, width), dtype=np.int64)

        for _ in range(T):
            y_t, h_t = model.decoder(s, h)  # (1, N * B, K), (1, N * B, D)
            log_p = mg.asarray(mg.nnet.logsoftmax(y_t[0], axis=-1)).reshape(N, width, -1)  # (N, B, K)
            candidates = (total[:, :, np.newaxis] + log_p).reshape(N, width * K)  # every beam times every token
            best = np.argsort(-candidates, axis=1, kind="stable")[:, :width]  # (N, B): the B best of all B * K
            beam, token = best // K, best % K  # which beam each winner extends, and with which token
            total = np.take_along_axis(candidates, best, axis=1)
            tokens = np.concatenate([tokens[:, rows, beam], token[np.newaxis]], axis=0)  # reorder the histories
            h = mg.asarray(h_t).reshape(N, width, D)[rows, beam].reshape(1, N * width, D)
            s = np.eye(K, dtype=np.float32)[token.reshape(1, N * width)]

    return tokens[:, :, 0], total[:, 0]  # sorted: beam 0 is the best
    ### END SOLUTION


# %%
# Try it: the untrained model of Part B on its two sequences. A wider beam usually finds a more likely output
# (a larger log-probability), though nothing guarantees it.
for width in (1, 2, 4):
    tokens_demo, log_prob_demo = beam_search(model_demo, x_demo, width)
    print(f"width {width}: log-probabilities {log_prob_demo.round(3)}, outputs (one column per sequence):")
    print(tokens_demo)

# %% course={"task": "beam_search"} nbgrader={"grade": true, "grade_id": "beam_search__beats_greedy_trap", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that beam_search keeps the 2 best partial outputs, where greedy decoding walks into a trap
from types import SimpleNamespace


class TableDecoder:
    # stands in for the decoder RNN: the probabilities of the next token depend only on the token just read
    def __init__(self, probs, D):
        self.log_probs = np.log(probs).astype(np.float32)  # row i: log p(next token | token i)
        self.input_layer = SimpleNamespace(weight=np.zeros((12, D), np.float32))

    def __call__(self, s, h):
        return mg.matmul(s, self.log_probs), h


class FixedEncoder:
    def __init__(self, D):
        self.D = D

    def __call__(self, x, h=None):
        T, N = x.shape[:2]
        return mg.zeros((T, N, 12), dtype=np.float32), mg.zeros((T, N, self.D), dtype=np.float32)


probs = np.full((12, 12), 0.1 / 11)  # by default <E> follows with probability 0.9
probs[:, 11] = 0.9
probs[10] = 0.01  # after <S>: token 1 (0.5) looks better than token 2 (0.4)
probs[10, [1, 2]] = 0.5, 0.4
probs[1] = 0.015  # after 1: no clear winner
probs[1, [0, 3, 4, 5]] = 0.25, 0.23, 0.21, 0.19
probs[2] = 0.1 / 11  # after 2: token 3 is almost sure
probs[2, 3] = 0.9
trap = SimpleNamespace(encoder=FixedEncoder(4), decoder=TableDecoder(probs, 4))
x = np.zeros((3, 2, 12), np.float32)  # T = 3, N = 2 (the source does not matter to these stubs)

tokens, log_prob = beam_search(trap, x, 1)
tokens = np.asarray(tokens)
assert np.shape(tokens) == (3, 2) and np.shape(log_prob) == (2,), \
    f"shapes {np.shape(tokens)} and {np.shape(log_prob)}, expected (T, N) = (3, 2) and (N,) = (2,)"
assert np.array_equal(tokens[:, 0], [1, 0, 11]), f"width 1 wrote {tokens[:, 0]}, expected greedy's 1 0 11"
assert np.allclose(log_prob, np.log(0.5 * 0.25 * 0.9), atol=1e-4), \
    f"width 1: log-probability {log_prob}, expected log(0.5 * 0.25 * 0.9) = {np.log(0.5 * 0.25 * 0.9):.4f}"
tokens, log_prob = beam_search(trap, x, 2)
tokens = np.asarray(tokens)
assert np.shape(tokens) == (3, 2) and np.shape(log_prob) == (2,), \
    f"width 2: shapes {np.shape(tokens)} and {np.shape(log_prob)}, expected (T, N) = (3, 2) and (N,) = (2,)"
assert np.array_equal(tokens[:, 0], [2, 3, 11]), \
    f"width 2 wrote {tokens[:, 0]}, expected 2 3 11 (probability 0.4 * 0.9 * 0.9 beats greedy's 0.5 * 0.25 * 0.9)"
assert np.allclose(log_prob, np.log(0.4 * 0.9 * 0.9), atol=1e-4), \
    f"width 2: log-probability {log_prob}, expected log(0.4 * 0.9 * 0.9) = {np.log(0.4 * 0.9 * 0.9):.4f}"
assert np.issubdtype(np.asarray(tokens).dtype, np.integer), f"tokens of dtype {np.asarray(tokens).dtype}; return integers"
### BEGIN HIDDEN TESTS
wide = [beam_search(trap, x, 3), beam_search(trap, x, 5), beam_search(trap, x, 12)]
for width, (tokens, log_prob) in zip((3, 5, 12), wide, strict=True):
    assert np.shape(tokens) == (3, 2) and np.array_equal(tokens[:, 1], [2, 3, 11]), \
        f"width {width} lost the best output that width 2 finds: keep the `width` best candidates of ALL beams"
    assert np.shape(log_prob) == (2,), f"width {width}: log-probabilities of shape {np.shape(log_prob)}, expected (N,) = (2,)"
    assert np.allclose(log_prob, np.log(0.4 * 0.9 * 0.9), atol=1e-4), \
        f"width {width}: the returned log-probability is not the sum of log p over the T tokens of the best output"
tokens, log_prob = beam_search(trap, np.zeros((1, 3, 12), np.float32), 2)
assert np.shape(tokens) == (1, 3) and np.all(np.asarray(tokens) == 1), \
    "T = 1: the single output token must be the most likely one after <S>"
### END HIDDEN TESTS

# %% course={"task": "beam_search"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "beam_search__width_one_is_greedy", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that beam_search with width 1 is greedy decoding, and returns the output's log-probability
def greedy_reference(model, x):
    # greedy decoding written out with the model's own RNNs; the log-probability of what it writes
    T, N = x.shape[:2]
    with mg.no_autodiff:
        _, enc_h = model.encoder(x)
        h, s = enc_h[-1:], np.eye(12, dtype=np.float32)[np.full((1, N), 10)]
        out, total = [], np.zeros(N)
        for _ in range(T):
            y_t, h = model.decoder(s, h)
            log_p = mg.asarray(mg.nnet.logsoftmax(y_t[0], axis=-1))
            best = log_p.argmax(axis=-1)
            out.append(best)
            total += log_p[np.arange(N), best]
            s = np.eye(12, dtype=np.float32)[best[np.newaxis]]
    return np.stack(out), total


np.random.seed(5)
seq_model = Seq2Seq(12, 8, 12)
x = np.eye(12, dtype=np.float32)[np.random.default_rng(5).integers(0, 12, size=(6, 3))]
tokens, log_prob = beam_search(seq_model, x, 1)
expected_tokens, expected_log_prob = greedy_reference(seq_model, x)
assert np.shape(tokens) == (6, 3), f"tokens of shape {np.shape(tokens)}, expected (T, N) = (6, 3)"
assert np.shape(log_prob) == (3,), f"log-probabilities of shape {np.shape(log_prob)}, expected (N,) = (3,)"
assert np.array_equal(tokens, expected_tokens), "with width 1, beam search must write what greedy decoding writes"
assert np.allclose(log_prob, expected_log_prob, atol=1e-4), \
    "with width 1, the log-probability must be the sum of log-softmax scores of the greedy tokens"
### BEGIN HIDDEN TESTS
def width_one_and_greedy(T, N, D, seed):
    # a new model and source: what beam search of width 1 returns, and what greedy decoding writes
    np.random.seed(seed)
    seq_model = Seq2Seq(12, D, 12)
    x = np.eye(12, dtype=np.float32)[np.random.default_rng(seed).integers(0, 12, size=(T, N))]
    return beam_search(seq_model, mg.tensor(x), 1), greedy_reference(seq_model, x)


cases = [(1, 2, 5, 1), (11, 4, 6, 2), (20, 1, 3, 3)]  # T, N, D, seed
shapes = [(T, N) for T, N, D, seed in cases]
runs = [width_one_and_greedy(*case) for case in cases]
for (T, N), ((tokens, log_prob), (expected_tokens, expected_log_prob)) in zip(shapes, runs, strict=True):
    assert np.shape(tokens) == (T, N) and np.shape(log_prob) == (N,), \
        f"T = {T}, N = {N}: shapes {np.shape(tokens)} and {np.shape(log_prob)}, expected (T, N) and (N,): one output per sequence, T tokens long"
    assert np.array_equal(tokens, expected_tokens), \
        f"T = {T}, N = {N}: width 1 differs from greedy decoding (start from the encoder's last state and <S>, run T steps)"
    assert np.allclose(log_prob, expected_log_prob, atol=1e-3), \
        f"T = {T}, N = {N}: the log-probability is not the sum of log-softmax scores (not raw scores, not probabilities)"
### END HIDDEN TESTS

# %% course={"task": "beam_search"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "beam_search__finds_most_likely", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that a wide beam finds the most likely output of all, and that sequences are decoded apart
def log_prob_of(model, x, outputs):
    # log-probability of given outputs (T, M), each decoded from source x (T, M, C), by feeding them in
    T, M = outputs.shape
    with mg.no_autodiff:
        _, enc_h = model.encoder(x)
        h = enc_h[-1:]
        inputs = np.concatenate([np.full((1, M), 10), outputs[:-1]])
        total = np.zeros(M)
        for t in range(T):
            y_t, h = model.decoder(np.eye(12, dtype=np.float32)[inputs[t : t + 1]], h)
            total += mg.asarray(mg.nnet.logsoftmax(y_t[0], axis=-1))[np.arange(M), outputs[t]]
    return total


np.random.seed(7)
seq_model = Seq2Seq(12, 6, 12)
x = np.eye(12, dtype=np.float32)[np.random.default_rng(7).integers(0, 12, size=(3, 2))]  # T = 3, N = 2
every = np.stack(np.meshgrid(*[np.arange(12)] * 3, indexing="ij")).reshape(3, -1)  # all 12^3 outputs
tokens, log_prob = beam_search(seq_model, x, 144)  # 144 = 12^2: no prefix is ever pruned
assert np.shape(tokens) == (3, 2) and np.shape(log_prob) == (2,), \
    f"shapes {np.shape(tokens)} and {np.shape(log_prob)}, expected (T, N) = (3, 2) and (N,) = (2,)"
totals = [log_prob_of(seq_model, np.repeat(x[:, n : n + 1], every.shape[1], axis=1), every) for n in range(2)]
for n in range(2):
    best = every[:, totals[n].argmax()]
    assert np.array_equal(tokens[:, n], best), \
        f"sequence {n}: a beam of width 144 keeps every prefix, so it must find the most likely of all 1728 outputs"
    assert np.isclose(log_prob[n], totals[n].max(), atol=1e-3), f"sequence {n}: the log-probability of the best output is off"
### BEGIN HIDDEN TESTS
# T = 2 and width 12 keep every prefix too
np.random.seed(9)
seq_model = Seq2Seq(12, 5, 12)
x = np.eye(12, dtype=np.float32)[np.random.default_rng(9).integers(0, 12, size=(2, 3))]
every = np.stack(np.meshgrid(*[np.arange(12)] * 2, indexing="ij")).reshape(2, -1)
tokens, log_prob = beam_search(seq_model, x, 12)
totals = [log_prob_of(seq_model, np.repeat(x[:, n : n + 1], every.shape[1], axis=1), every) for n in range(3)]
for n in range(3):
    assert np.array_equal(np.asarray(tokens)[:, n], every[:, totals[n].argmax()]), \
        f"T = 2, width 12: sequence {n} is not the most likely output; rank by the SUM of log-probabilities over all beams"
def batch_and_alone(T, N, D, width, seed):
    # a new model and source: beam search on the batch, the log-probability of what it wrote, each sequence alone
    np.random.seed(seed)
    seq_model = Seq2Seq(12, D, 12)
    x = np.eye(12, dtype=np.float32)[np.random.default_rng(seed).integers(0, 12, size=(T, N))]
    tokens, log_prob = beam_search(seq_model, x, width)
    rescored = log_prob_of(seq_model, x, np.asarray(tokens)) if np.shape(tokens) == (T, N) else None
    alone = [beam_search(seq_model, x[:, n : n + 1], width)[0] for n in range(N)]
    return tokens, log_prob, rescored, alone


cases = [(5, 3, 6, 3, 11), (4, 2, 4, 5, 12)]  # T, N, D, width, seed
checked = [(T, N, width) for T, N, D, width, seed in cases]
runs = [batch_and_alone(*case) for case in cases]
for (T, N, width), (tokens, log_prob, rescored, alone) in zip(checked, runs, strict=True):
    assert np.shape(tokens) == (T, N), f"T = {T}, N = {N}, width {width}: tokens of shape {np.shape(tokens)}"
    assert np.shape(log_prob) == (N,) and np.shape(rescored) == (N,), \
        f"T = {T}, N = {N}, width {width}: log-probabilities of shape {np.shape(log_prob)}, expected (N,) = {(N,)}"
    assert np.allclose(log_prob, rescored, atol=1e-3), \
        f"width {width}: the returned log-probability is not that of the returned tokens (reorder the kept histories and states with their beams)"
    for n in range(N):
        assert np.array_equal(np.asarray(alone[n])[:, 0], np.asarray(tokens)[:, n]), \
            f"width {width}: sequence {n} decoded alone differs from the same sequence in a batch: choose the beams of each sequence separately"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "beam_accuracy_text", "locked": true, "schema_version": 3, "solution": false}
# ### Does a wider beam help the trained model?
#
# The cell below measures the whole-sequence accuracy for each number of digits, with beams of width 1 (greedy),
# 3 and 5, on the same sequences (1000 per length, fewer in quick mode). Expect it to take under half a minute
# on the 2-core machine the course was measured on.

# %% tags=["slow"]
widths = [1, 3, 5]
n_per_length = pick(full=1000, quick=20)
beam_accuracies = np.zeros((len(widths), len(lengths)))
for j, length in enumerate(lengths):
    x, target, _ = generate_batch(length, length, n_per_length)  # the same sequences for every width
    for i, width in enumerate(widths):
        tokens, _ = beam_search(model, x, width)
        beam_accuracies[i, j] = np.mean(np.all(tokens == target, axis=0))

fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
for width, row in zip(widths, beam_accuracies):
    ax.plot(lengths, row, marker="o", label=f"width {width}" + (" (greedy)" if width == 1 else ""))
ax.set_xlabel("number of digits $L = T - 1$")
ax.set_ylabel("whole-sequence accuracy")
ax.set_title("Seq2Seq: greedy decoding and beam search")
ax.set_xticks(lengths)
ax.set_ylim(-0.03, 1.03)
ax.grid(alpha=0.3)
ax.legend()
plt.show()

print("L    " + "".join(f"  width {w}" for w in widths))
for j, length in enumerate(lengths):
    print(f"{length:2d}   " + "".join(f"  {a:7.3f}" for a in beam_accuracies[:, j]))

# %% [markdown] nbgrader={"grade": false, "grade_id": "beam_result_text", "locked": true, "schema_version": 3, "solution": false}
# Read the table printed above. Expect about this: nothing changes up to about six digits, where greedy is already
# right; from about seven to fifteen digits, width 3 removes roughly a third to a half of greedy's errors (around 15
# digits, expect greedy around 0.6–0.75 and width 3 about 0.1 higher); width 5 is hardly better than width 3; and at 19 or 20
# digits every width stays near 0.
#
# Beam search only re-ranks outputs the decoder itself rates: it repairs outputs that were *nearly* right, where the
# right digit was a close second at some step and greedy's wrong pick pulled the rest off course. Where the decoder's
# scores give no clue, every beam is a guess. Why the longest sequences are out of reach is for Part D; notebook 03
# gives the decoder another way to read the source.

# %% [markdown] nbgrader={"grade": false, "grade_id": "seq2seq_vs_rnn_question", "locked": true, "schema_version": 3, "solution": false}
# ## Part D: Seq2Seq against the plain RNN (2 points)
#
# Compare the accuracy curve of greedy decoding (*Accuracy by length*) with the one of the plain RNN in
# notebook 01. Where does Seq2Seq win, and why
# can it, when the plain RNN could not? Then look at long sequences: why does the accuracy of Seq2Seq fall as
# $L$ grows, even though every length up to 20 appears in training? Answer in a few sentences in the cell below.
#
# ### BEGIN MARK SCHEME
#
# **For the grader** (this part is removed from the student version and from the feedback).
#
# *Model answer.* The plain RNN had to emit the first target token at step 1, when it had read a single digit, so it was only
# reliable for one digit. Seq2Seq writes nothing until the encoder has read the whole sequence: every digit the
# decoder needs is, in principle, in $h^e_T$. That is why short sequences are reversed without a single error
# (here every sequence of up to five digits, and 99 % up to about nine), far beyond what the plain RNN could do.
#
# The weak point is that the whole source has to pass through that one vector of $D$ numbers, which is rewritten
# at every step. The first digit must survive $T$ encoder updates and then almost $T$ decoder updates before it is
# written last, and the gradient that would teach the model to keep it travels back through the same long chain,
# so it fades. More digits must also share the same $D$ numbers. Each token of a long sequence is therefore
# slightly less certain, and a whole-sequence score multiplies those small risks over up to 21 tokens, so the
# accuracy drops steadily beyond about ten digits and is close to 0 at 20 (here 0.6 %). More training or a larger $D$ pushes
# the drop further out but keeps the bottleneck.
#
# *Rubric (2 points).*
#
# - 1 point: Seq2Seq wins on short sequences because it reads the whole source before it writes anything, so every
#   digit is available (in $h^e_T$) when the decoder needs it; the plain RNN had to answer before reading.
# - 1 point: the fall with $L$ comes from the bottleneck: the whole source must pass through one state of $D$ numbers,
#   over a long chain of updates (and of gradients), and the whole-sequence accuracy multiplies the small per-token
#   risks. Any one of these mechanisms, correctly explained, earns the point.
# - No point for "long sequences are rare in training" or "it did not train long enough": every length from 1 to 20
#   is trained equally often.
#
# ### END MARK SCHEME

# %% [markdown] nbgrader={"grade": true, "grade_id": "seq2seq_vs_rnn", "locked": false, "points": 2, "schema_version": 3, "solution": true}
# The model answer and the rubric are in the mark scheme of the question above.

# %% [markdown] nbgrader={"grade": false, "grade_id": "exercises_text", "locked": true, "schema_version": 3, "solution": false}
# ## Exercises
#
# These are not graded. Each asks a question the notebook leaves open; some ask you to change the code and measure.
#
# 1. A decoder for real text stops at its first `<E>`, so its outputs differ in length. Why does ranking them by the
#    summed log-probability favour short outputs? Look up *length normalisation* (dividing by $L^\alpha$) and say
#    what $\alpha = 0$ and $\alpha = 1$ mean.
# 2. Count the decoder steps: how many rows does one call of `beam_search` with width $B$ push through the decoder,
#    compared with greedy decoding and with checking all $K^T$ outputs for $T = 21$? Time widths 1, 5 and 20.
# 3. Change `dim_recurrent` in `SETTINGS` to 100 and train again. How far to the right does the accuracy curve move?
#    Does beam search still help, and where?
# 4. *Teacher forcing*: during training, feed the decoder the right previous token (from `target`) instead of its
#    own guess. Write a second model that does so, train it, and decode greedily. Does it learn faster? Is it as
#    good at test time, when it must read its own guesses?
# 5. Instead of the arg-max, *sample* each token from the softmax of the scores. How often is a sampled reversal
#    right, for 5 and for 15 digits? What does a temperature (scores divided by $\tau$) change?
# 6. This notebook's encoder reads the digits in their own order. Feed it the digits reversed (keep `<E>` last), so
#    the decoder writes them in the order they were read. Is Seq2Seq better or worse on long sequences, and why?

# %% [markdown] nbgrader={"grade": false, "grade_id": "recap_text", "locked": true, "schema_version": 3, "solution": false}
# ## Recap
#
# - `one_hot_encode_prediction` turns a decoder step's scores into its next input: greedy decoding.
# - `Seq2Seq` reads the whole source with an encoder RNN, then starts a decoder RNN from the encoder's last
#   state $h^e_T$ and `<S>`, and lets it write one token per step from its own previous guess.
# - `beam_search` keeps the $B$ most likely partial outputs, ranked by their summed log-probabilities; width 1 is
#   greedy decoding. It repairs near misses, but the longest sequences stay near 0 at every width.
# - *Accuracy by length* sets Seq2Seq against the plain RNN, length by length; Part D asks you to explain where
#   it wins and why it falls off.
#
# Notebook 03 adds **attention**: at every step the decoder looks back at *all* the encoder
# states $h^e_1, \dots, h^e_T$ and takes a weighted average of the ones it needs. It reuses `RNN`,
# `one_hot_encode_prediction` and the structure of `Seq2Seq`.
