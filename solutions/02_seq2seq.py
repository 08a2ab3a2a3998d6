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
# - build a **Seq2Seq** model (Sutskever, Vinyals and Le, 2014; Cho et al., 2014): an *encoder* RNN reads the digits
#   into its last hidden state, and a *decoder* RNN started from that state writes the reversal one token at a time;
# - train it on the reversal task of notebook 01 and measure its whole-sequence accuracy for every length;
# - train it again with *teacher forcing*, its decoder reading the true previous tokens instead of its own
#   guesses, and see *exposure bias* in what follows a first mistake;
# - replace greedy decoding by **beam search**, which keeps several candidate outputs, and measure what it buys;
# - measure where its accuracy falls off with length, which is where attention (notebook 03) comes in.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
import numpy as np
import mygrad as mg
import matplotlib.pyplot as plt

from mynn.layers.dense import dense
from course.recurrent import RNN  # notebook 01's RNN, its loop over time one operation
from mynn.optimizers.adam import Adam
from mygrad.nnet import glorot_normal, softmax_crossentropy

from course.runtime import pick
from course.progress import progress
from course.figures import setup_backend, create_plot, show_reversal

setup_backend()

# %% [markdown] nbgrader={"grade": false, "grade_id": "given_text", "locked": true, "schema_version": 3, "solution": false}
# ## Given code from notebook 01
#
# The cell below holds the reference solutions of notebook 01, so that this notebook does not depend on your
# answers there: `generate_batch`, `loss_and_accuracy` and `accuracy_by_length`, plus the token indices
# `START_TOKEN = 10` (`<S>`) and `END_TOKEN = 11` (`<E>`). Run it; it is locked.
#
# The class `RNN` is imported in the first cell, from `course.recurrent`. It is notebook 01's reference `RNN`
# (the same layers, weights, call and `parameters`) with one change: its input layer and its loop over the $T$
# steps are a single MyGrad operation, `course.ops.tanh_rnn`, whose backward pass (backpropagation through time)
# is written by hand. It computes the same states as your loop, only faster (`RNN??` shows its code).
#
# Two facts about `RNN` matter here. A call `rnn(x, h)` with `x` of shape $(T, N, C)$ and a start state `h`
# of shape $(1, N, D)$ returns the scores $(T, N, K)$ and the states $h_1, \dots, h_T$ as $(T, N, D)$.
# With $T = 1$ that is exactly one step of the recurrence, and the state it returns, of shape $(1, N, D)$,
# is ready to be passed to the next call.

# %% course={"given": ["01_rnn:generate_batch", "01_rnn:loss_and_accuracy", "01_rnn:accuracy_by_length"]} nbgrader={"grade": false, "grade_id": "given_code", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
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
# We train the model the way it will be used: the decoder reads its own guesses during training too. This is
# called **free running**. The usual alternative is **teacher forcing**: during training the decoder reads the true
# previous token from the target instead of its guess, so it is trained on correct histories only. At test time
# it must read its own guesses, and after a mistake it reads a history it never saw in training: *exposure bias*.
# Part E trains the same model with teacher forcing and measures what each way costs.
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
scores = np.array([[[0.3, 2.0, -1.0, 0.5, -4.0], [4.0, 0.0, 1.0, 3.9, -4.0], [-2.0, -3.0, -0.5, -1.0, -4.0],
                    [1.0, 3.0, 3.0, 0.0, -4.0]]], dtype=np.float32)  # N = 4, K = 5; the last sequence has a tie
expected = np.array([[[0, 1, 0, 0, 0], [1, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 1, 0, 0, 0]]], dtype=np.float32)
s = one_hot_encode_prediction(scores)
assert np.shape(s) == (1, 4, 5), \
    f"shape {np.shape(s)}, expected (1, N, K) = (1, 4, 5): for each sequence the arg-max over the K classes (the last axis), one-hot as a row of the K x K identity"
assert np.asarray(s)[0, 3].sum() == 1, (
    f"a tie in a one-hot: sequence 3 scores 3.0 for classes 1 and 2 and got {np.asarray(s)[0, 3]}; "
    "a one-hot vector has a single 1, at the first of the tied classes (as argmax picks)"
)
assert np.array_equal(np.asarray(s), expected), \
    f"got\n{np.asarray(s)}\nexpected\n{expected}\neach sequence gets its own arg-max, over the K classes (the last axis)"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("one_hot_encode_prediction__marks_the_best_class")  # this submission's own inputs
shapes = [(1, int(rng.integers(2, 13)), int(rng.integers(2, 16))), (1, 1, int(rng.integers(2, 16))),
          (1, int(rng.integers(2, 13)), 12)]
cases = [rng.normal(size=shape).astype(np.float32) for shape in shapes]
wanted = [(scores.shape, np.eye(scores.shape[-1])[scores.argmax(axis=-1)]) for scores in cases]
answers = [np.asarray(one_hot_encode_prediction(mg.tensor(scores))) for scores in cases]
for (shape, want), s in zip(wanted, answers, strict=True):
    assert s.shape == shape, f"random scores gave an answer of shape {s.shape}: keep the scores' shape (1, N, K)"
    assert np.array_equal(s, want), \
        "for random scores of other shapes (other N, other K), the ones are not at each sequence's largest score"
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
from course.draws import hidden_rng

rng = hidden_rng("one_hot_encode_prediction__float32_array")  # this submission's own inputs
shape = (1, int(rng.integers(2, 13)), int(rng.integers(3, 16)))
y = mg.tensor(rng.normal(size=shape), dtype=np.float64)
best = y.data.argmax(axis=-1)
s = one_hot_encode_prediction(y * 2)
assert type(s) is np.ndarray and s.dtype == np.float32 and s.shape == shape, \
    f"float64 scores in a tensor gave a {type(s).__name__} of dtype {getattr(s, 'dtype', None)}; expected a float32 NumPy array"
s = one_hot_encode_prediction(y.data)
assert type(s) is np.ndarray and s.dtype == np.float32, \
    f"a float64 NumPy array as input gave a {type(s).__name__} of dtype {getattr(s, 'dtype', None)}; expected a float32 NumPy array"
assert np.array_equal(s.argmax(axis=-1), best), "for a NumPy array as input, the ones are not at the largest scores"
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
# Seq2Seq feeds its guesses back through your one_hot_encode_prediction: first, that it works on scores like the decoder's
from course.checks import guess_case

guess_scores, guess_wanted = guess_case()  # one step's scores, best classes 3 and 7, and their one-hot guesses
own_guess = mg.asarray(one_hot_encode_prediction(mg.tensor(guess_scores)))
assert own_guess.dtype == np.float32 and np.array_equal(own_guess, guess_wanted), (
    "Seq2Seq feeds back the guesses of your one_hot_encode_prediction, which gives a wrong answer (or not float32) "
    "for one decoder step's scores: fix one_hot_encode_prediction (Part A) first"
)
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
        self.inputs.append(np.array(mg.asarray(x)))
        self.states.append(None if h is None else np.array(mg.asarray(h)))
        if h is None:  # no start state: the check below says so; go on from zeros
            h = np.zeros(x.shape[:2] + (len(self.mix),), dtype=np.float32)
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
assert len(dec_inputs) == 5, \
    f"the decoder ran {len(dec_inputs)} steps for T = 5: decode T steps, one per target token (one decoding step too few or too many?)"
assert dec_inputs[0].shape == (1, 3, 12), \
    f"decoder input of shape {dec_inputs[0].shape}, expected (1, N, K) = (1, 3, 12)"
assert dec_inputs[0].dtype == np.float32, "the <S> input must be float32"
assert np.array_equal(dec_inputs[0], inputs[0]), "the first decoder input must be one-hot <S> (index 10)"
assert dec_states[0] is not None, "the decoder must be given a start state: the encoder's last state"
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
from course.draws import hidden_rng

rng = hidden_rng("seq2seq__greedy_decoding")  # this submission's own inputs: one step, one sequence, a long batch
cases = [(1, int(rng.integers(2, 5)), int(rng.integers(2, 7)), int(rng.integers(2**31))),
         (int(rng.integers(6, 13)), 1, int(rng.integers(2, 7)), int(rng.integers(2**31))),
         (int(rng.integers(8, 16)), int(rng.integers(3, 8)), int(rng.integers(2, 5)), int(rng.integers(2**31)))]  # T, N, D, seed
expected = [(T, N, D, expected_decoding(T, N, D, seed)) for T, N, D, seed in cases]
runs = [run_with_stubs(*case) for case in cases]
for (T, N, D, wanted), got in zip(expected, runs, strict=True):
    x, inputs, states, scores = wanted
    enc_inputs, dec_inputs, dec_states, y = got
    assert len(dec_inputs) == T, f"the decoder ran {len(dec_inputs)} steps, expected T: one step per output token"
    for t in range(T):
        assert np.array_equal(dec_inputs[t], inputs[t]), \
            "a decoder input must be <S> at the first step, then the one-hot of the previous best class"
        assert dec_inputs[t].dtype == np.float32, \
            f"a decoder input is {dec_inputs[t].dtype}, expected float32"
        assert dec_states[t].shape == (1, N, D), \
            f"the state passed to a decoder step has shape {dec_states[t].shape}, expected (1, N, D)"
        assert np.allclose(dec_states[t], states[t], atol=1e-6), \
            "each decoder step must start from the state returned by the step before (the encoder's last state at the first step)"
    assert y.shape == (T, N, 12) and np.allclose(y.data, scores, atol=1e-5), \
        f"expected the decoder's scores y_1, ..., y_T joined as a (T, N, K) tensor, got shape {y.shape}"
### END HIDDEN TESTS

# %% course={"task": "seq2seq"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "seq2seq__matches_reference", "locked": true, "points": 2, "schema_version": 3, "solution": false}
# Check that Seq2Seq, with weights this check loads into its two RNNs, gives the scores of greedy decoding
# Seq2Seq feeds its guesses back through your one_hot_encode_prediction: first, that it works on scores like the decoder's
from course.checks import guess_case

guess_scores, guess_wanted = guess_case()  # one step's scores, best classes 3 and 7, and their one-hot guesses
own_guess = mg.asarray(one_hot_encode_prediction(mg.tensor(guess_scores)))
assert own_guess.dtype == np.float32 and np.array_equal(own_guess, guess_wanted), (
    "Seq2Seq feeds back the guesses of your one_hot_encode_prediction, which gives a wrong answer (or not float32) "
    "for one decoder step's scores: fix one_hot_encode_prediction (Part A) first"
)

LAYERS = ("input_layer", "recurrent_layer", "output_layer")  # the layers of an RNN; only the recurrent one has no bias


def seeded_weights(C, D, K, seed):
    # the check's weights for an encoder RNN(C, D, K) and a decoder RNN(K, D, K): (weight, bias) of every layer
    rng = np.random.default_rng(seed)

    def draw(*shape):
        return (1.5 * rng.normal(size=shape) / np.sqrt(shape[0])).astype(np.float32)

    return {rnn: {"input_layer": (draw(size, D), draw(1, D)), "recurrent_layer": (draw(D, D), None),
                  "output_layer": (draw(D, K), draw(1, K))} for rnn, size in (("encoder", C), ("decoder", K))}


def load_weights(model, weights):
    # the check's weights into the `weight` and `bias` of each layer of model.encoder and model.decoder
    for rnn, layers in weights.items():
        for name, (weight, bias) in layers.items():
            layer = getattr(getattr(model, rnn), name)
            layer.weight = mg.tensor(weight)
            if bias is not None:
                layer.bias = mg.tensor(bias)


def read_weights(rnn):
    # the weights an RNN holds now, layer by layer, as NumPy arrays
    return [np.array(mg.asarray(getattr(rnn, name).weight)) for name in ("input_layer", "recurrent_layer", "output_layer")]


def one_hot_source(T, N, C, seed):
    # N source sequences of T one-hot vectors of size C, drawn from `seed`
    return np.eye(C, dtype=np.float32)[np.random.default_rng(seed).integers(0, C, size=(T, N))]


def rnn_step(layers, s, h):
    # one step of an RNN with the check's weights, in NumPy: the scores (N, K) and the new state (N, D)
    (w_in, b_in), (w_rec, _), (w_out, b_out) = (layers[name] for name in LAYERS)
    h = np.tanh(s @ w_in + b_in + h @ w_rec)
    return h @ w_out + b_out, h


def greedy_scores(weights, x):
    # greedy decoding written out in NumPy with the check's weights: the scores y_1, ..., y_T, shape (T, N, K)
    h = np.zeros((x.shape[1], weights["encoder"]["recurrent_layer"][0].shape[0]))
    for x_t in x:
        _, h = rnn_step(weights["encoder"], x_t, h)
    s, scores = np.eye(12)[np.full(x.shape[1], 10)], []
    for _ in range(len(x)):
        y, h = rnn_step(weights["decoder"], s, h)
        scores.append(y)
        s = np.eye(12)[y.argmax(axis=-1)]
    return np.stack(scores)


x = one_hot_source(T=7, N=4, C=12, seed=0)
expected = greedy_scores(seeded_weights(12, 6, 12, seed=0), x)
expected_encoder = np.concatenate([w.ravel() for w, _ in seeded_weights(12, 6, 12, seed=0)["encoder"].values()])
expected_params = sorted(np.array(w).ravel().tolist() for layers in seeded_weights(12, 6, 12, seed=0).values()
                         for pair in layers.values() for w in pair if w is not None)
model = Seq2Seq(12, 6, 12)
load_weights(model, seeded_weights(12, 6, 12, seed=0))  # the encoder's weights first, then the decoder's
encoder_weights = read_weights(model.encoder)
y = model(x.copy())
params_type = type(model.parameters).__name__
params = [np.array(mg.asarray(p)) for p in model.parameters] if params_type == "tuple" else []
other_sizes = Seq2Seq(7, 6, 12)  # C = 7 source tokens, K = 12 classes
built = [tuple(p.shape) for p in other_sizes.encoder.parameters + other_sizes.decoder.parameters]
assert np.array_equal(np.concatenate([np.ravel(w) for w in encoder_weights]), expected_encoder), \
    "loading the decoder's weights changed the encoder's: the decoder shares weights with the encoder (create two RNNs)"
assert built == [(7, 6), (1, 6), (6, 6), (6, 12), (1, 12), (12, 6), (1, 6), (6, 6), (6, 12), (1, 12)], \
    f"Seq2Seq(7, 6, 12) builds weights of shapes {built}: for inputs with C = 7 the encoder is RNN(C, D, K), the decoder RNN(K, D, K)"
assert isinstance(y, mg.Tensor), f"return a MyGrad tensor, not {type(y)}"
assert y.shape == (7, 4, 12) and y.dtype == np.float32, \
    f"scores of shape {y.shape} and dtype {y.dtype}, expected (T, N, K) = (7, 4, 12) and float32"
assert np.allclose(y.data, expected, atol=1e-4), \
    "with the weights this check loaded, the scores differ from greedy decoding written out step by step"
assert params_type == "tuple", f"parameters is a {params_type}; it must be a tuple (a property, not a method)"
assert sorted(np.ravel(p).tolist() for p in params) == expected_params, \
    f"parameters holds {len(params)} tensors; it must list the 10 weights and biases of both RNNs, each once"
### BEGIN HIDDEN TESTS
y.sum().backward()
encoder_grad = model.encoder.input_layer.weight.grad
assert encoder_grad is not None and np.any(encoder_grad != 0), \
    "no gradient reaches the encoder's weights: pass its last state to the decoder as a tensor"
from course.draws import hidden_rng

rng = hidden_rng("seq2seq__matches_reference")  # this submission's own inputs: one step, then a long batch
cases = [(1, int(rng.integers(2, 6)), int(rng.integers(3, 8)), int(rng.integers(2**31))),
         (int(rng.integers(10, 18)), int(rng.integers(1, 4)), int(rng.integers(3, 8)), int(rng.integers(2**31)))]
checked = [(T, N, D) for T, N, D, seed in cases]  # the grader's own copy: the calls below read `cases`
wanted = [greedy_scores(seeded_weights(12, D, 12, seed), one_hot_source(T, N, 12, seed)) for T, N, D, seed in cases]
models = [Seq2Seq(12, D, 12) for T, N, D, seed in cases]
loaded = [load_weights(model, seeded_weights(12, D, 12, seed)) for model, (T, N, D, seed) in zip(models, cases)]
outputs = [mg.asarray(model(one_hot_source(T, N, 12, seed))) for model, (T, N, D, seed) in zip(models, cases)]
for i, (T, N, D) in enumerate(checked):
    assert np.shape(outputs[i]) == (T, N, 12) and np.allclose(outputs[i], wanted[i], atol=1e-4), \
        "for other lengths, batch and hidden sizes, the scores differ from greedy decoding with the weights this check loaded"
# inputs of another size than the classes: C < K = 12
C, T, N, seed = int(rng.integers(4, 11)), int(rng.integers(3, 8)), int(rng.integers(2, 5)), int(rng.integers(2**31))
x = one_hot_source(T=T, N=N, C=C, seed=seed)
weights = seeded_weights(C, 6, 12, seed=seed)
expected = greedy_scores(weights, x)
scores_shape = (T, N, 12)
try:
    model = Seq2Seq(C, 6, 12)
    load_weights(model, weights)
    y = mg.asarray(model(x.copy()))
    failure = None
except Exception as err:
    y = None
    failure = type(err).__name__
assert failure is None, (
    "Seq2Seq fails when C differs from K: the encoder is RNN(C, D, K), the decoder RNN(K, D, K)"
)
assert y.shape == scores_shape and np.allclose(y, expected, atol=1e-4), \
    "when C differs from K, the scores differ from greedy decoding with the weights this check loaded"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "training_text", "locked": true, "schema_version": 3, "solution": false}
# ## Training
#
# Train a Seq2Seq model with $D = 50$ on batches of $N = 100$ sequences of 1 to 20 digits, with Adam at its
# default settings, for 10 000 steps: under a minute on a laptop, several minutes on a machine that other work
# keeps busy. The cell prints a progress line every 30 s with the time per step and the time left. The plot follows the loss and the whole-sequence accuracy of
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
    for step in progress(n_steps):  # range(n_steps), with a progress line every 30 s
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
# above, costs the whole sequence, and the wrong token is also the next step's input. Sometimes the model itself
# rated the right output more likely as a whole: a *search error*, which a wider search can repair. The
# probability of an output $s_1, \dots, s_T$ is a product over the steps, so its **log-probability** is a sum:
#
# $$
# \log p(s_1, \dots, s_T \mid x) = \sum_{t=1}^{T} \log p(s_t \mid s_1, \dots, s_{t-1}, x), \qquad
# \log p(s_t = k \mid \dots) = y_{t,k} - \log \sum_{k'} \exp y_{t,k'} .
# $$
#
# The second formula is the **log-softmax** of the step's scores (`mg.nnet.logsoftmax`). Raw scores are not
# log-probabilities: each step's carry their own offset, the $\log \sum$ term, which differs from step to step and
# from one partial output to another.
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
# *Figure: beam search with $B = 2$; each number beside a box is the running sum $\sum_t \log p(s_t \mid \dots)$, and each step keeps the two largest of all candidates, so after two steps the beam's `B C` (−1.4) is ahead of greedy's `A A` (−2.1), although greedy's first pick `A` (−0.7)
# looked better, and `B C <E>` (−1.5) wins.*

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
# | `tokens` | $(t, N, B)$ | the tokens each kept output has written in the $t$ steps so far (at first $t = 0$) |
# | `h` | $(1, N B, D)$ | each kept output's decoder state |
# | `candidates` | $(N, B K)$ | `(total[:, :, None] + log_p).reshape(N, B * K)`, with `log_p` reshaped to $(N, B, K)$ first |
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
    # stands in for the decoder RNN: the probabilities of the next token depend only on the token just read;
    # its state is the token it read, and it remembers (token read, token in the state) for every row of every call
    def __init__(self, probs):
        self.log_probs = np.log(probs).astype(np.float32)  # row i: log p(next token | token i)
        self.input_layer = SimpleNamespace(weight=np.zeros((12, 12), np.float32))
        self.read = []

    def __call__(self, s, h):
        s, h = mg.asarray(s)[0], mg.asarray(h)[0]
        in_state = np.where(h.any(axis=-1), h.argmax(axis=-1), -1)  # -1: the encoder's empty state
        self.read += [(int(a), int(b)) for a, b in zip(s.argmax(axis=-1), in_state)]
        scores = s @ self.log_probs + np.float32(2)  # log p + 2: only a log-softmax gives back log p
        return mg.tensor(scores)[np.newaxis], mg.tensor(s)[np.newaxis]


class FixedEncoder:
    def __call__(self, x, h=None):
        T, N = x.shape[:2]
        return mg.zeros((T, N, 12), dtype=np.float32), mg.zeros((T, N, 12), dtype=np.float32)


def trap_table(relabel):
    # the trap's probabilities, with every token i renamed relabel[i]
    probs = np.full((12, 12), 0.1 / 11)  # by default <E> follows with probability 0.9
    probs[:, 11] = 0.9
    probs[10] = 0.01  # after <S>: token 1 (0.5) looks better than token 2 (0.4)
    probs[10, [1, 2]] = 0.5, 0.4
    probs[1] = 0.015  # after 1: no clear winner
    probs[1, [0, 3, 4, 5]] = 0.25, 0.23, 0.21, 0.19
    probs[2] = 0.1 / 11  # after 2: token 3 is almost sure
    probs[2, 3] = 0.9
    renamed = np.empty_like(probs)
    renamed[np.ix_(relabel, relabel)] = probs
    return renamed


def trap(relabel=np.arange(12)):
    return SimpleNamespace(encoder=FixedEncoder(), decoder=TableDecoder(trap_table(relabel)))


x = np.zeros((3, 2, 12), np.float32)  # T = 3, N = 2 (the source does not matter to these stubs)
alone_tokens, alone_log_prob = beam_search(trap(), x[:, :1].copy(), 1)  # one sequence, one beam
tokens, log_prob = beam_search(trap(), x.copy(), 1)
tokens = np.asarray(tokens)
trap_model = trap()  # not `model`: that name holds the trained model the cells below use
wide_tokens, wide_log_prob = beam_search(trap_model, x.copy(), 2)
wide_tokens, pairs = np.asarray(wide_tokens), sorted(set(trap_model.decoder.read))
assert not np.allclose(alone_log_prob, 0), \
    "one sequence, width 1: log-probability 0, as if the output were certain: take the log-softmax over the classes axis (-1), not over the rows"
assert np.all(np.asarray(log_prob) < 0), \
    f"width 1: log-probability {log_prob}, but a log-probability is never positive: sum log-softmax(scores), not probabilities or raw scores"
assert np.ndim(tokens) == 2 and len(tokens) == 3, \
    f"width 1 returned tokens of shape {np.shape(tokens)} for T = 3: decode T steps, one per target token (one decoding step too few?)"
assert np.shape(tokens) == (3, 2) and np.shape(log_prob) == (2,), \
    f"shapes {np.shape(tokens)} and {np.shape(log_prob)}, expected (T, N) = (3, 2) and (N,) = (2,)"
assert not np.array_equal(tokens[:, 0], [2, 3, 11]), \
    "width 1 found the output that only a wider beam finds: use the `width` argument for the number of kept outputs"
assert np.array_equal(tokens[:, 0], [1, 0, 11]), \
    f"width 1 wrote {tokens[:, 0]}, expected greedy's 1 0 11: keep the candidates with the LARGEST summed log-probability"
assert np.allclose(log_prob, np.log(0.5 * 0.25 * 0.9), atol=1e-4), \
    f"width 1: log-probability {log_prob}, expected log(0.5 * 0.25 * 0.9) = {np.log(0.5 * 0.25 * 0.9):.4f}"
assert [pair for pair in map(tuple, pairs) if pair in {(3, 1), (0, 2)}] == [], (
    "width 2: the decoder read token 3 with the state of the beam that wrote 1 (or 0 with that of 2): "
    "the decoder state was not reordered with the beams (each kept candidate continues the state of the beam it came from)"
)
assert (2, 10) in set(map(tuple, pairs)), (
    "width 2 kept token 1 twice after <S>, so no beam tried 2: start the copies of <S> at -inf except the first, "
    "and keep the 2 best candidates of all beams (not each beam's own best token)"
)
assert np.shape(wide_tokens) == (3, 2) and np.shape(wide_log_prob) == (2,), \
    f"width 2: shapes {np.shape(wide_tokens)} and {np.shape(wide_log_prob)}, expected (T, N) = (3, 2) and (N,) = (2,)"
assert not np.array_equal(wide_tokens[:, 0], [1, 0, 11]), \
    "width 2 returned greedy's 1 0 11 although it kept 2 3 11, which is more likely: return the kept output with the largest log-probability"
assert np.array_equal(wide_tokens[:, 0], [2, 3, 11]), (
    f"width 2 wrote {wide_tokens[:, 0]}, expected 2 3 11 (probability 0.4 * 0.9 * 0.9 beats greedy's 0.5 * 0.25 * 0.9); "
    "each kept token must extend the history of the beam it came from"
)
assert np.allclose(wide_log_prob, np.log(0.4 * 0.9 * 0.9), atol=1e-4), \
    f"width 2: log-probability {wide_log_prob}, expected log(0.4 * 0.9 * 0.9) = {np.log(0.4 * 0.9 * 0.9):.4f}"
assert np.issubdtype(wide_tokens.dtype, np.integer), f"tokens of dtype {wide_tokens.dtype}; return integers"
### BEGIN HIDDEN TESTS
# the same trap with its tokens renamed (<S> stays 10), three sequences, wider beams
from course.draws import hidden_rng

rng = hidden_rng("beam_search__beats_greedy_trap")  # this submission's own renaming
others = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11]
relabel = np.arange(12)
relabel[others] = rng.permutation(others)
greedy_output, best_output = relabel[[1, 0, 11]], relabel[[2, 3, 11]]
x = np.zeros((3, 3, 12), np.float32)
renamed = [beam_search(trap(relabel), x.copy(), width) for width in (1, 2, 3, 5, 12)]
for width, (tokens, log_prob) in zip((1, 2, 3, 5, 12), renamed, strict=True):
    expected, expected_log_prob = (greedy_output, 0.5 * 0.25 * 0.9) if width == 1 else (best_output, 0.4 * 0.9 * 0.9)
    assert np.shape(tokens) == (3, 3) and np.shape(log_prob) == (3,), \
        f"on the trap with its tokens renamed: shapes {np.shape(tokens)} and {np.shape(log_prob)}, expected (T, N) and (N,)"
    assert all(np.array_equal(np.asarray(tokens)[:, n], expected) for n in range(3)), \
        "on the trap with its tokens renamed: not the most likely output the beam can find; keep the `width` best " \
        "candidates of ALL beams"
    assert np.allclose(log_prob, np.log(expected_log_prob), atol=1e-4), \
        "on the trap with its tokens renamed: the returned log-probability is not the sum of log p over the T tokens " \
        "of the best output"
tokens, log_prob = beam_search(trap(relabel), np.zeros((1, 3, 12), np.float32), 2)
assert np.shape(tokens) == (1, 3) and np.all(np.asarray(tokens) == greedy_output[0]), \
    "with a single output step, the output token must be the most likely one after <S>"
### END HIDDEN TESTS

# %% course={"task": "beam_search"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "beam_search__width_one_is_greedy", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that beam_search with width 1 is greedy decoding, and returns the output's log-probability
from types import SimpleNamespace

LAYERS = ("input_layer", "recurrent_layer", "output_layer")  # the layers of an RNN; only the recurrent one has no bias


def seeded_weights(D, seed):
    # the check's weights for an encoder and a decoder RNN(12, D, 12): (weight, bias) of every layer
    rng = np.random.default_rng(seed)

    def draw(*shape):
        return (1.5 * rng.normal(size=shape) / np.sqrt(shape[0])).astype(np.float32)

    return {rnn: {"input_layer": (draw(12, D), draw(1, D)), "recurrent_layer": (draw(D, D), None),
                  "output_layer": (draw(D, 12), draw(1, 12))} for rnn in ("encoder", "decoder")}


def grader_model(D, seed):
    # two RNNs of the given code holding the check's weights: all that beam_search reads of a Seq2Seq
    model = SimpleNamespace(encoder=RNN(12, D, 12), decoder=RNN(12, D, 12))
    for rnn, layers in seeded_weights(D, seed).items():
        for name, (weight, bias) in layers.items():
            layer = getattr(getattr(model, rnn), name)
            layer.weight = mg.tensor(weight)
            if bias is not None:
                layer.bias = mg.tensor(bias)
    return model


def one_hot_source(T, N, seed):
    # N source sequences of T one-hot vectors, drawn from `seed`
    return np.eye(12, dtype=np.float32)[np.random.default_rng(seed).integers(0, 12, size=(T, N))]


def rnn_step(layers, s, h):
    # one step of an RNN with the check's weights, in NumPy: the scores (N, K) and the new state (N, D)
    (w_in, b_in), (w_rec, _), (w_out, b_out) = (layers[name] for name in LAYERS)
    h = np.tanh(s @ w_in + b_in + h @ w_rec)
    return h @ w_out + b_out, h


def log_softmax(y):
    # log p of every class, from the scores y (rows, K)
    shifted = y - y.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def encode(weights, x):
    # the encoder's last state (N, D), the decoder's first
    h = np.zeros((x.shape[1], weights["encoder"]["recurrent_layer"][0].shape[0]))
    for x_t in x:
        _, h = rnn_step(weights["encoder"], x_t, h)
    return h


def greedy_reference(weights, x):
    # greedy decoding in NumPy with the check's weights: the tokens (T, N) and their log-probability (N,)
    T, N = x.shape[:2]
    h, s = encode(weights, x), np.eye(12)[np.full(N, 10)]
    tokens, total = [], np.zeros(N)
    for _ in range(T):
        y, h = rnn_step(weights["decoder"], s, h)
        log_p = log_softmax(y)
        best = log_p.argmax(axis=-1)
        tokens.append(best)
        total += log_p[np.arange(N), best]
        s = np.eye(12)[best]
    return np.stack(tokens), total


x = one_hot_source(T=6, N=3, seed=5)
expected_tokens, expected_log_prob = greedy_reference(seeded_weights(8, seed=5), x)
tokens, log_prob = beam_search(grader_model(8, seed=5), x.copy(), 1)
assert np.shape(tokens) == (6, 3) and np.shape(log_prob) == (3,), \
    f"shapes {np.shape(tokens)} and {np.shape(log_prob)}, expected (T, N) = (6, 3) and (N,) = (3,)"
assert np.array_equal(tokens, expected_tokens), \
    "with width 1 and the weights this check loaded, beam search must write what greedy decoding writes"
assert np.allclose(log_prob, expected_log_prob, atol=1e-4), \
    "with width 1, the log-probability must be the sum of the log-softmax scores of the greedy tokens"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("beam_search__width_one_is_greedy")  # this submission's own inputs: one step, a batch, one long
cases = [(1, int(rng.integers(2, 5)), int(rng.integers(3, 8)), int(rng.integers(2**31))),
         (int(rng.integers(6, 13)), int(rng.integers(2, 6)), int(rng.integers(3, 8)), int(rng.integers(2**31))),
         (int(rng.integers(15, 23)), 1, int(rng.integers(2, 5)), int(rng.integers(2**31)))]  # T, N, D, seed
checked = [(T, N) for T, N, D, seed in cases]  # the grader's own copy: the calls below read `cases`
wanted = [greedy_reference(seeded_weights(D, seed), one_hot_source(T, N, seed)) for T, N, D, seed in cases]
runs = [beam_search(grader_model(D, seed), one_hot_source(T, N, seed), 1) for T, N, D, seed in cases]
for i, (T, N) in enumerate(checked):
    assert np.shape(runs[i][0]) == (T, N) and np.shape(runs[i][1]) == (N,), \
        f"shapes {np.shape(runs[i][0])} and {np.shape(runs[i][1])}, expected (T, N) and (N,): one output per sequence, T tokens long"
    assert np.array_equal(runs[i][0], wanted[i][0]), \
        "width 1 differs from greedy decoding (start from the encoder's last state and <S>, run T steps)"
    assert np.allclose(runs[i][1], wanted[i][1], atol=1e-3), \
        "with width 1, the log-probability is not the sum of log-softmax scores (not raw scores, not probabilities)"
### END HIDDEN TESTS

# %% course={"task": "beam_search"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "beam_search__finds_most_likely", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that a wide beam finds the most likely output of all, and that sequences are decoded apart
from types import SimpleNamespace

LAYERS = ("input_layer", "recurrent_layer", "output_layer")  # the layers of an RNN; only the recurrent one has no bias


def seeded_weights(D, seed):
    # the check's weights for an encoder and a decoder RNN(12, D, 12): (weight, bias) of every layer
    rng = np.random.default_rng(seed)

    def draw(*shape):
        return (1.5 * rng.normal(size=shape) / np.sqrt(shape[0])).astype(np.float32)

    return {rnn: {"input_layer": (draw(12, D), draw(1, D)), "recurrent_layer": (draw(D, D), None),
                  "output_layer": (draw(D, 12), draw(1, 12))} for rnn in ("encoder", "decoder")}


def grader_model(D, seed):
    # two RNNs of the given code holding the check's weights: all that beam_search reads of a Seq2Seq
    model = SimpleNamespace(encoder=RNN(12, D, 12), decoder=RNN(12, D, 12))
    for rnn, layers in seeded_weights(D, seed).items():
        for name, (weight, bias) in layers.items():
            layer = getattr(getattr(model, rnn), name)
            layer.weight = mg.tensor(weight)
            if bias is not None:
                layer.bias = mg.tensor(bias)
    return model


def one_hot_source(T, N, seed):
    # N source sequences of T one-hot vectors, drawn from `seed`
    return np.eye(12, dtype=np.float32)[np.random.default_rng(seed).integers(0, 12, size=(T, N))]


def rnn_step(layers, s, h):
    # one step of an RNN with the check's weights, in NumPy: the scores (N, K) and the new state (N, D)
    (w_in, b_in), (w_rec, _), (w_out, b_out) = (layers[name] for name in LAYERS)
    h = np.tanh(s @ w_in + b_in + h @ w_rec)
    return h @ w_out + b_out, h


def log_softmax(y):
    # log p of every class, from the scores y (rows, K)
    shifted = y - y.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def encode(weights, x):
    # the encoder's last state (N, D), the decoder's first
    h = np.zeros((x.shape[1], weights["encoder"]["recurrent_layer"][0].shape[0]))
    for x_t in x:
        _, h = rnn_step(weights["encoder"], x_t, h)
    return h


def log_prob_of(weights, x, outputs):
    # the log-probability of given outputs (T, M), each written for its source x (T, M, 12), in NumPy
    T, M = outputs.shape
    h = encode(weights, x)
    inputs = np.concatenate([np.full((1, M), 10), outputs[:-1]])  # <S>, then each output's own tokens
    total = np.zeros(M)
    for t in range(T):
        y, h = rnn_step(weights["decoder"], np.eye(12)[inputs[t]], h)
        total += log_softmax(y)[np.arange(M), outputs[t]]
    return total


def most_likely(weights, x):
    # of all 12^T outputs, the most likely one of each sequence (T, N), and its log-probability (N,)
    T, N = x.shape[:2]
    every = np.stack(np.meshgrid(*[np.arange(12)] * T, indexing="ij")).reshape(T, -1)
    totals = [log_prob_of(weights, np.repeat(x[:, n : n + 1], every.shape[1], axis=1), every) for n in range(N)]
    return np.stack([every[:, t.argmax()] for t in totals], axis=1), np.array([t.max() for t in totals])


x = one_hot_source(T=3, N=2, seed=7)
expected_tokens, expected_log_prob = most_likely(seeded_weights(6, seed=7), x)
tokens, log_prob = beam_search(grader_model(6, seed=7), x.copy(), 144)  # 144 = 12^2: no prefix is ever pruned
assert np.shape(tokens) == (3, 2) and np.shape(log_prob) == (2,), \
    f"shapes {np.shape(tokens)} and {np.shape(log_prob)}, expected (T, N) = (3, 2) and (N,) = (2,)"
assert np.allclose(log_prob, expected_log_prob, atol=1e-3), \
    "a beam of width 144 keeps every prefix, so its log-probability must be the largest of all 1728 outputs"
assert np.array_equal(tokens, expected_tokens), \
    "a beam of width 144 keeps every prefix, so it must return the most likely of all 1728 outputs"
### BEGIN HIDDEN TESTS
def beam_reference(weights, x, width):
    # beam search written out in NumPy with the check's weights: the best output (T, N) and its log-probability (N,)
    T, N = x.shape[:2]
    rows = np.arange(N)[:, np.newaxis]
    h, s = np.repeat(encode(weights, x), width, axis=0), np.eye(12)[np.full(N * width, 10)]
    total = np.full((N, width), -np.inf)
    total[:, 0] = 0
    tokens = np.zeros((0, N, width), dtype=int)
    for _ in range(T):
        y, h = rnn_step(weights["decoder"], s, h)
        candidates = (total[:, :, np.newaxis] + log_softmax(y).reshape(N, width, 12)).reshape(N, -1)
        best = np.argsort(-candidates, axis=1, kind="stable")[:, :width]
        beam, token = best // 12, best % 12
        total = np.take_along_axis(candidates, best, axis=1)
        tokens = np.concatenate([tokens[:, rows, beam], token[np.newaxis]])
        h = h.reshape(N, width, -1)[rows, beam].reshape(N * width, -1)
        s = np.eye(12)[token.reshape(-1)]
    return tokens[:, :, 0], total[:, 0]


from course.draws import hidden_rng

rng = hidden_rng("beam_search__finds_most_likely")  # this submission's own inputs
# T = 2 and width 12 keep every prefix too
N, seed = int(rng.integers(2, 6)), int(rng.integers(2**31))
x = one_hot_source(T=2, N=N, seed=seed)
expected_tokens, expected_log_prob = most_likely(seeded_weights(5, seed=seed), x)
tokens_shape = (2, N)
tokens, log_prob = beam_search(grader_model(5, seed=seed), x.copy(), 12)
assert np.shape(tokens) == tokens_shape and np.array_equal(tokens, expected_tokens), \
    "with a beam as wide as the vocabulary: not the most likely output of each sequence; rank by the SUM of " \
    "log-probabilities over all beams"
assert np.allclose(log_prob, expected_log_prob, atol=1e-3), \
    "with a beam as wide as the vocabulary: the log-probability is not that of the most likely output"
cases = [(int(rng.integers(3, 7)), int(rng.integers(2, 5)), int(rng.integers(3, 8)), int(rng.integers(2, 6)),
          int(rng.integers(2**31))) for _ in range(2)]  # T, N, D, width, seed
checked = [(T, N, width) for T, N, D, width, seed in cases]  # the grader's own copy: the calls below read `cases`
wanted = [beam_reference(seeded_weights(D, seed), one_hot_source(T, N, seed), width) for T, N, D, width, seed in cases]
batches = [beam_search(grader_model(D, seed), one_hot_source(T, N, seed), width) for T, N, D, width, seed in cases]
alone = [[np.asarray(beam_search(grader_model(D, seed), one_hot_source(T, N, seed)[:, n : n + 1], width)[0])
          for n in range(N)] for T, N, D, width, seed in cases]
for i, (T, N, width) in enumerate(checked):
    assert np.shape(batches[i][0]) == (T, N) and np.shape(batches[i][1]) == (N,), \
        f"shapes {np.shape(batches[i][0])} and {np.shape(batches[i][1])}, expected (T, N) and (N,)"
    assert np.allclose(batches[i][1], wanted[i][1], atol=1e-3), \
        "the log-probability is not that of the best kept output (reorder the kept histories and states with their beams)"
    assert np.array_equal(batches[i][0], wanted[i][0]), \
        "not the output beam search keeps best (reorder the kept histories and states with their beams)"
    for n in range(N):
        assert np.array_equal(np.asarray(alone[i][n])[:, 0], wanted[i][0][:, n]), \
            "a sequence decoded alone is not the output it gets in a batch: choose the beams of each sequence separately"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "beam_accuracy_text", "locked": true, "schema_version": 3, "solution": false}
# ### Does a wider beam help the trained model?
#
# The cell below measures the whole-sequence accuracy for each number of digits, with beams of width 1 (greedy),
# 3 and 5, on the same sequences (1000 per length, fewer in quick mode): expect up to a minute.

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
# right; from about seven to fifteen digits, width 3 removes roughly a fifth to two fifths of greedy's errors; width 5
# is hardly better than width 3; and at 20 digits every width stays near 0. Where greedy starts to fail, and with it
# the whole table, varies from run to run.
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
# (here every sequence of up to five digits, and about 98 % or more up to nine), far beyond what the plain RNN could do.
#
# The weak point is that the whole source has to pass through that one vector of $D$ numbers, which is rewritten
# at every step. The first digit must survive $T$ encoder updates and then almost $T$ decoder updates before it is
# written last, and the gradient that would teach the model to keep it must travel back through that same long
# chain, a product of many Jacobians (notebook 01's last part). More digits must also share the same $D$ numbers. Each token of a long sequence is therefore
# slightly less certain, and a whole-sequence score multiplies those small risks over up to 21 tokens, so the
# accuracy drops steadily beyond about ten digits and is close to 0 at 20 (0.2 % in the reference's run, at most about 2 % in five runs). More training or a larger $D$ pushes
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

# %% [markdown] nbgrader={"grade": false, "grade_id": "teacher_forcing_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part E: teacher forcing and exposure bias (4 points)
#
# `Seq2Seq` trains its decoder *free running*: at every step it reads its own previous guess, in training as at
# test time. The usual alternative is **teacher forcing** (Williams and Zipser, 1989): in training the decoder reads the *true* previous
# token, the target one step late, whatever it guessed. Each way has a cost.
#
# - **Free running** trains the decoder the way it is used. But each input waits for the previous guess, so the
#   decoder runs step by step, and early in training most of its inputs are wrong guesses.
# - With **teacher forcing** every input is known before decoding starts, so the decoder RNN reads all $T$ of
#   them in one call, as the encoder does, and every step learns from a correct history. But in training the
#   decoder never reads one of its own mistakes. At test time there is no target to read: it reads its own
#   guesses, and after its first mistake it reads a history unlike any it was trained on.
#
# That last cost has a name, **exposure bias** (Ranzato et al., 2016). In this part you write the inputs of teacher forcing, train the
# same model with them, and measure both models length by length.

# %% [markdown] nbgrader={"grade": false, "grade_id": "teacher_forcing_task_text", "locked": true, "schema_version": 3, "solution": false}
# With teacher forcing the decoder reads `<S>` first, then the target shifted one step later. The last target
# token, `<E>`, is never an input. For the reversal of `3 1 4`, with $T = 4$:
#
# | decoder step $t$ | 1 | 2 | 3 | 4 |
# |---|---|---|---|---|
# | input $s_t$ | `<S>` | `4` (the true token, whatever it guessed) | `1` | `3` |
# | wanted output | `4` | `1` | `3` | `<E>` |
#
# In NumPy, with rows counted from 0 and time first: row 0 of the inputs is one-hot `<S>` for every sequence,
# and row `t` is the one-hot vector of `target[t - 1]`, the same sequence's previous target token.
#
# Complete `teacher_forcing_inputs`. It takes the target, shape $(T, N)$, and the number of classes $K$, and returns
# a `float32` array of shape $(T, N, K)$. Shift along the time axis (axis 0), put `START_TOKEN` first, and one-hot
# encode with `np.eye(K)` as in Part A.

# %% nbgrader={"grade": false, "grade_id": "teacher_forcing_inputs", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
def teacher_forcing_inputs(target, num_classes):
    """The decoder's inputs under teacher forcing: <S>, then the target one step late.

    Parameters
    ----------
    target : numpy.ndarray, shape=(T, N), integer dtype
        The right token of every sequence at every step.
    num_classes : int
        K, the size of a one-hot vector.

    Returns
    -------
    numpy.ndarray, shape=(T, N, K), dtype=float32
        Row 0 is one-hot <S> for every sequence; row t is the one-hot vector of target[t - 1].
    """
    ### BEGIN SOLUTION
    T, N = target.shape
    previous = np.concatenate([np.full((1, N), START_TOKEN), target[:-1]], axis=0)  # (T, N): <S>, then z_1..z_{T-1}
    return np.eye(num_classes, dtype=np.float32)[previous]
    ### END SOLUTION


# %%
# Try it: the tokens that teacher forcing feeds the decoder for two reversals (one column per sequence).
np.random.seed(3)
_, target_demo, _ = generate_batch(3, 3, 2)
inputs_demo = teacher_forcing_inputs(target_demo, 12)
print("target:", target_demo, sep="\n")
print("tokens read:", np.asarray(inputs_demo).argmax(axis=-1), sep="\n")  # <S> (10), then the target one row late
print(np.shape(inputs_demo), getattr(inputs_demo, "dtype", None))  # expect (4, 2, 12) float32

# %% course={"task": "teacher_forcing_inputs"} nbgrader={"grade": true, "grade_id": "teacher_forcing_inputs__shifted_target", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that teacher_forcing_inputs gives <S>, then each sequence's previous target token, one-hot
target = np.array([[4, 7], [1, 7], [3, 2], [11, 11]])  # the reversals of 3 1 4 and 2 7 7; T = 4, N = 2
expected = np.array([[10, 10], [4, 7], [1, 7], [3, 2]])  # the tokens read: <S>, then the target one step late
inputs = teacher_forcing_inputs(target.copy(), 12)
assert np.shape(inputs) == (4, 2, 12), (
    f"shape {np.shape(inputs)}, expected (T, N, K) = (4, 2, 12): one input per decoder step, <S> first, "
    "then the first T - 1 target tokens (the last one, <E>, is never an input)"
)
assert np.asarray(inputs).dtype == np.float32, \
    f"dtype {np.asarray(inputs).dtype}, expected float32: a float64 input turns the decoder's work into float64"
read = np.asarray(inputs).argmax(axis=-1)  # (T, N): the token each step reads
assert not np.array_equal(read, target), (
    "off by one: step t reads target[t], the very token it must predict; shift the target one step later "
    "(row t holds target[t - 1]) and put <S> first"
)
assert not np.all(read[:, 0] == 10), (
    "sequence 0 reads <S> at every step: the shift went along the batch axis (axis 1); shift along the time "
    "axis (axis 0), so that each sequence reads its own previous token"
)
assert np.array_equal(read[0], [10, 10]), (
    f"the first step reads tokens {read[0]}, expected <S> (index 10) for every sequence: put one-hot START_TOKEN "
    "first (not zeros; np.roll would wrap the last target token, <E>, round to the front)"
)
assert np.array_equal(np.asarray(inputs).sum(axis=-1), np.ones((4, 2))), \
    "each step of each sequence needs exactly one 1, over the K classes (the last axis)"
assert np.array_equal(read, expected), \
    f"the steps read\n{read}\nexpected\n{expected}\nrow t must hold the same sequence's target[t - 1]"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("teacher_forcing_inputs__shifted_target")  # this submission's own inputs
cases = [(2, int(rng.integers(2, 6)), 12), (int(rng.integers(4, 10)), 1, 12),
         (int(rng.integers(5, 12)), int(rng.integers(2, 7)), int(rng.integers(13, 20))),
         (int(rng.integers(16, 24)), int(rng.integers(3, 9)), 12)]  # T, N, K
targets = [np.concatenate([rng.integers(0, 10, size=(T - 1, N)), np.full((1, N), 11)]) for T, N, K in cases]
wanted = [np.eye(K, dtype=np.float32)[np.concatenate([np.full((1, N), 10), z[:-1]])]
          for (T, N, K), z in zip(cases, targets, strict=True)]
sizes = [K for T, N, K in cases]
answers = [np.asarray(teacher_forcing_inputs(z.copy(), K)) for z, K in zip(targets, sizes, strict=True)]
for want, got in zip(wanted, answers, strict=True):
    assert got.shape == want.shape, \
        f"for other lengths, batch sizes or numbers of classes: shape {got.shape}, expected (T, N, K), " \
        "one-hot vectors of num_classes entries"
    assert got.dtype == np.float32, f"for other lengths, batch sizes or numbers of classes: dtype {got.dtype}, expected float32"
    assert np.array_equal(got, want), (
        "for other lengths, batch sizes or numbers of classes K: not one-hot <S> and then each sequence's target "
        "one step late, over K classes"
    )
### END HIDDEN TESTS

# %% course={"task": "teacher_forcing_inputs"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "teacher_forcing_inputs__single_step", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that a target of a single token (<E>) gets a single input, <S>, and that K sets the one-hot size
target = np.full((1, 3), 11)  # T = 1, N = 3
inputs = teacher_forcing_inputs(target.copy(), 12)
assert np.shape(inputs) == (1, 3, 12), \
    f"a target of one token gave inputs of shape {np.shape(inputs)}, expected (T, N, K) = (1, 3, 12)"
assert np.array_equal(np.asarray(inputs)[0].argmax(axis=-1), [10, 10, 10]) and np.asarray(inputs).sum() == 3, \
    "a target of one token: the only input is one-hot <S> for every sequence"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("teacher_forcing_inputs__single_step")  # this submission's own inputs
T, N, K = int(rng.integers(8, 16)), int(rng.integers(2, 7)), int(rng.integers(13, 20))
target = np.concatenate([rng.integers(0, 10, size=(T - 1, N)), np.full((1, N), 11)])
expected = np.eye(K, dtype=np.float32)[np.concatenate([np.full((1, N), 10), target[:-1]])]
inputs = np.asarray(teacher_forcing_inputs(target.copy(), K))
assert inputs.shape == expected.shape, \
    f"with another number of classes K: inputs of shape {inputs.shape}, expected (T, N, K): one-hot vectors of num_classes entries"
assert inputs.dtype == np.float32 and np.array_equal(inputs, expected), \
    "with another number of classes K: not one-hot <S>, then the target one step late, as float32"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "teacher_forcing_training_text", "locked": true, "schema_version": 3, "solution": false}
# ### Training with teacher forcing
#
# The cell below trains a second `Seq2Seq`, the same in every way but one: its decoder reads your
# `teacher_forcing_inputs` instead of its own guesses. `teacher_forced_scores` runs your encoder, then the decoder
# RNN once over all $T$ inputs from the encoder's last state. The seed is the one of *Training*, so both models
# start from the same weights and see the same batches. Expect it to take less time than *Training*: the decoder
# makes one call per batch instead of $T$.
#
# At test time the teacher-forced model has no target to read: calling it, `model_forced(x)`, decodes greedily
# from its own guesses, exactly as the free-running `model` does.

# %% tags=["slow"]
# The teacher-forced decoder: it reads <S> and the true previous tokens, all T of them in one call of the RNN
def teacher_forced_scores(seq2seq, x, target):
    """The decoder's scores y_1, ..., y_T, shape (T, N, K), when it reads <S> and then the target one step late."""
    _, enc_h = seq2seq.encoder(x)
    K = seq2seq.decoder.input_layer.weight.shape[0]  # the decoder reads one-hot vectors over the K classes
    scores, _ = seq2seq.decoder(teacher_forcing_inputs(target, K), enc_h[-1:])
    return scores


np.random.seed(0)  # as in Training: the same first weights, the same batches
model_forced = Seq2Seq(dim_input=12, dim_recurrent=SETTINGS["dim_recurrent"], dim_output=12)
optimizer_forced = Adam(model_forced.parameters, learning_rate=SETTINGS["learning_rate"])
n_steps = pick(full=SETTINGS["n_steps"], quick=30)

plotter, fig, ax = create_plot(["loss", "accuracy"])
with mg.mem_guard_off:
    for step in progress(n_steps):
        x, target, _ = generate_batch(SETTINGS["seq_len_min"], SETTINGS["seq_len_max"], SETTINGS["batch_size"])
        loss, accuracy = loss_and_accuracy(teacher_forced_scores(model_forced, x, target), target)
        loss.backward()
        optimizer_forced.step()
        plotter.set_train_batch({"loss": loss.item(), "accuracy": accuracy}, batch_size=SETTINGS["batch_size"])
plotter.plot()

# %% [markdown] nbgrader={"grade": false, "grade_id": "teacher_forcing_compare_text", "locked": true, "schema_version": 3, "solution": false}
# ### Both models, length by length
#
# The next cell gives both models the same 1000 sequences of each length (fewer in quick mode) and measures two
# things:
#
# - **whole-sequence accuracy**, decoding greedily, as in *Accuracy by length* (left plot);
# - **after the first mistake**: in each sequence the model gets wrong, the fraction of the tokens after its first
#   wrong one that are still right, once when it reads its own guesses (greedy, solid lines) and once when it reads
#   the true previous tokens (teacher forcing, dashed lines) at those same steps (right plot). A length where fewer
#   than 20 sequences go wrong has no point there.

# %% tags=["slow"]
# Both models on the same sequences: whole-sequence accuracy, and what follows each sequence's first mistake
def after_first_mistake(seq2seq, x, target):
    """Whole-sequence accuracy (greedy), and how many tokens after each sequence's first mistake are right: reading
    its own guesses, and reading the true previous tokens. Fewer than 20 sequences with a mistake: NaN."""
    with mg.no_autodiff:
        own = np.argmax(mg.asarray(seq2seq(x)), axis=-1)  # (T, N): greedy, each step reads the previous guess
        true = np.argmax(mg.asarray(teacher_forced_scores(seq2seq, x, target)), axis=-1)  # reads the target
    wrong = own != target
    first = np.where(wrong.any(axis=0), wrong.argmax(axis=0), len(target))  # each sequence's first mistake
    later = np.arange(len(target))[:, np.newaxis] > first  # (T, N): the steps after it
    whole = np.mean(~wrong.any(axis=0))
    if wrong.any(axis=0).sum() < 20:
        return whole, np.nan, np.nan
    return whole, np.mean((own == target)[later]), np.mean((true == target)[later])


models = {"free running": model, "teacher forcing": model_forced}
results = {name: np.zeros((len(lengths), 3)) for name in models}  # per length: whole, after (own), after (true)
np.random.seed(1)
for j, length in enumerate(lengths):
    x, target, _ = generate_batch(length, length, pick(full=1000, quick=20))  # the same sequences for both
    for name, trained in models.items():
        results[name][j] = after_first_mistake(trained, x, target)

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8), layout="constrained")
for (name, rows), color in zip(results.items(), ("C0", "C1")):
    left.plot(lengths, rows[:, 0], marker="o", color=color, label=name)
    right.plot(lengths, rows[:, 1], marker="o", color=color, label=f"{name}: reads its own guesses")
    right.plot(lengths, rows[:, 2], marker="x", linestyle="--", color=color, label=f"{name}: reads the true tokens")
left.set_title("whole-sequence accuracy (greedy)")
right.set_title("tokens right after the first mistake")
for ax in (left, right):
    ax.set_xlabel("number of digits $L = T - 1$")
    ax.set_xticks(lengths[1::2])
    ax.set_xlim(0.5, 20.5)
    ax.set_ylim(-0.03, 1.03)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
plt.show()

print("        whole sequence     after the first mistake: own guesses / true tokens")
print(" L    free   forced       free running       teacher forcing")
for j, length in enumerate(lengths):
    free, forced = results["free running"][j], results["teacher forcing"][j]
    after = [" -  " if np.isnan(a) else f"{a:4.2f}" for a in (free[1], free[2], forced[1], forced[2])]
    print(f"{length:2d}   {free[0]:5.3f}   {forced[0]:5.3f}       {after[0]} / {after[1]}        {after[2]} / {after[3]}")

# %% [markdown] nbgrader={"grade": false, "grade_id": "exposure_bias_text", "locked": true, "schema_version": 3, "solution": false}
# ### What you see: exposure bias
#
# Start with the right plot. After its first mistake, the teacher-forced model gets far more of the following
# tokens right when it reads the true previous tokens (dashed) than when it reads its own guesses (solid: expect
# about a quarter to a half). A history with a wrong token in it is something it never read in training, where
# every input was a true token; its next guesses go wrong too, and they are its next inputs. The errors compound. This is **exposure
# bias**: trained only on true prefixes, the decoder was never exposed to its own mistakes. The free-running model
# read its own guesses in training, wrong ones included, and after a mistake it still gets most of the following
# tokens right.
#
# On the left, expect the two models level on short sequences, the free-running one ahead from about eight digits,
# and at 15 digits higher by about 0.2 to 0.5 (read the printed table). The question below asks what this plot can
# tell you about exposure bias.
#
# Teacher forcing remains the usual way to train sequence models all the same: its inputs are known in advance,
# which lets a Transformer compute every step of a sequence at once (notebook 04). One known remedy for exposure bias is *scheduled sampling*
# (Bengio et al., 2015): train with the true previous tokens at first, then feed the decoder its own guesses more
# and more often as training goes on.

# %% [markdown] nbgrader={"grade": false, "grade_id": "exposure_bias_question", "locked": true, "schema_version": 3, "solution": false}
# ### Question: what does whole-sequence accuracy see? (2 points)
#
# A sequence counts as right only if every one of its tokens is right. When a model gets a whole sequence right,
# what has its decoder read at each step, and does it matter whether it was given its own guesses or the true
# tokens? So can exposure bias, what happens after the first mistake, explain why the teacher-forced model's
# whole-sequence accuracy (left plot) is lower? If not, what does that lower curve tell you about the model?
# Answer in a few sentences in the cell below.
#
# ### BEGIN MARK SCHEME
#
# **For the grader** (this part is removed from the student version and from the feedback).
#
# *Model answer.* If every guess of a sequence is right, every guess equals the true token, so the decoder reads
# exactly the same inputs whether it is fed its own guesses or the true tokens. The whole-sequence accuracy of a
# model is therefore the same under both feedings, and nothing after the first mistake can change it: that sequence
# is already wrong. Exposure bias, the errors that compound after a first mistake, cannot explain the left plot.
# The teacher-forced model's lower curve means that it makes a first mistake more often, even when every input so
# far was a true token: its predictions from a correct history are less accurate. Here teacher forcing trained a
# weaker model, not only one that falls apart after a mistake.
#
# *Rubric (2 points).*
#
# - 1 point: a sequence counted right read only true tokens (its guesses were the true tokens), so whole-sequence
#   accuracy is decided at the first mistake, before own guesses and true tokens can differ; hence exposure bias
#   cannot explain the gap. Any correct phrasing of this argument earns the point.
# - 1 point: the gap comes from the first mistake: the teacher-forced model makes it more often, its predictions
#   from a correct history (true prefixes) being less accurate. "It learned less well" earns the point only with
#   that reason.
# - No point for "errors compound, so long sequences fail" as the explanation of the left plot: that is the right
#   plot.
#
# ### END MARK SCHEME

# %% [markdown] nbgrader={"grade": true, "grade_id": "exposure_bias", "locked": false, "points": 2, "schema_version": 3, "solution": true}
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
# 4. *Scheduled sampling*: give the decoder the true previous token with probability $p$, its own guess otherwise,
#    with $p$ falling from 1 to 0 during training. Where does its curve lie against the two models of Part E?
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
# - `teacher_forcing_inputs` feeds the decoder `<S>` and the target one step late: *teacher forcing*. Trained that
#   way, the decoder never reads its own mistakes, and after its first one at test time the errors compound:
#   *exposure bias*.
#
# Notebook 03 adds **attention**: at every step the decoder looks back at *all* the encoder
# states $h^e_1, \dots, h^e_T$ and takes a weighted average of the ones it needs. It reuses `RNN`,
# `one_hot_encode_prediction` and the structure of `Seq2Seq`.
