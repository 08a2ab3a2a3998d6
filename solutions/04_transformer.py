# %% [markdown] nbgrader={"grade": false, "grade_id": "intro", "locked": true, "schema_version": 3, "solution": false}
# # Notebook 4: Transformers — decrypting a Vigenère cipher
#
# The earlier notebooks' recurrent models read a sequence one step at a time. A Transformer has none: every position reads every other one through attention, all at once, and a positional encoding tells it the order. Here a small Transformer learns, from pairs of encrypted and plain messages alone, to decrypt text encrypted with one fixed Vigenère key. It never sees the key, so what it learns is that one key. Messages longer than 24 symbols are decrypted in pieces, each starting at the key's first symbol, as training messages do.
#
# In this notebook, we
#
# - build scaled dot-product attention, one head and then many, the masks that keep it off padding and the future, the residual connection with layer normalisation, and the encoder and decoder layers;
# - add the sinusoidal positional encoding and a variant made for this cipher, and assemble an encoder–decoder Transformer;
# - train it with teacher forcing and a loss that ignores padding, decrypt held-out text greedily, and test what it has learned;
# - look at what each trained attention head reads.

# %% [markdown] nbgrader={"grade": false, "grade_id": "intro_picture_text", "locked": true, "schema_version": 3, "solution": false}
# The whole model, which Part I assembles from the parts before it:
#
# ![The encoder-decoder Transformer: the cipher text plus a positional encoding runs through the encoder layers to give E; the decoder input plus a positional encoding runs through the decoder layers, each reading E; a dense layer gives 29 scores per position](figures/transformer.svg)
#
# *Figure: $E = \operatorname{Enc}(\text{src} + PE)$ on the left, $\text{scores} = \operatorname{Dense}\big(\operatorname{Dec}(E,\ \text{tgt} + PE)\big)$ on the right, with the shape of every arrow.*
#
# Shapes put time first, then the batch:
#
# | letter | here |
# |---|---|
# | `T` | source length: cipher symbols + the end token, padding included |
# | `t` | target (query) length |
# | `N` | batch size |
# | `d` | model width; our tokens are one-hot, so d = 29 |
# | `h` | number of attention heads; each works in `d_k = d // h` dimensions |
# | `K` | number of classes the loss scores (29); in Part C, $K$ is the matrix of keys |

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
import time

import numpy as np
import matplotlib.pyplot as plt

import mygrad as mg
from mygrad.nnet import glorot_normal, relu, softmax_crossentropy
from course.layers import dense  # MyNN's dense layer (the course's faster drop-in)
from mynn.optimizers.adam import Adam

from course import ops
from course.runtime import pick
from course.progress import progress
from course.cipher_data import load_cipher_data
from course.figures import setup_backend, create_plot, show_attention_maps, show_encodings, show_masks

setup_backend()

# %% [markdown] nbgrader={"grade": false, "grade_id": "alphabet_text", "locked": true, "schema_version": 3, "solution": false}
# ## The alphabet and the tokens
#
# A message uses 27 symbols, a–z and the space; a symbol's *token* is its place in `ALPHABET` (a → 0, …, space → 26). `START` (27) opens every decoder input and `END` (28) closes every source and target: 29 tokens. `tokens_of` (given) turns text into tokens, with a `ValueError` naming any character outside the alphabet; `text_of` turns tokens back into text.

# %% nbgrader={"grade": false, "grade_id": "alphabet", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
ALPHABET = "abcdefghijklmnopqrstuvwxyz "  # the 27 symbols of a message
START = len(ALPHABET)  # 27: opens every decoder input
END = len(ALPHABET) + 1  # 28: closes every source and every target
N_SYMBOLS = len(ALPHABET) + 2  # 29 tokens: the length of a one-hot vector
KEY = "clap"  # the key of every encrypted message in this notebook


def tokens_of(text):
    """The tokens of ``text``: a list of ints in [0, 27).

    Raises
    ------
    ValueError
        If ``text`` holds characters outside ``ALPHABET``; the message names them.
    """
    unknown = [c for c in dict.fromkeys(text) if c not in ALPHABET]
    if unknown:
        listed = ", ".join(repr(c) for c in unknown)
        raise ValueError(f"only the letters a-z and the space can be encoded, not {listed}")
    return [ALPHABET.index(symbol) for symbol in text]


def text_of(tokens):
    """The text of alphabet tokens (the inverse of ``tokens_of``)."""
    return "".join(ALPHABET[int(token)] for token in tokens)


# %% [markdown] nbgrader={"grade": false, "grade_id": "cipher_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part A: the Vigenère cipher (2 points)
#
# A Vigenère cipher shifts every symbol of a message by an amount read from a key. With the key $k_0 k_1 \dots k_{m-1}$ (tokens again), plain symbol $p_i$ is shifted by key symbol $i \bmod m$, wrapping around after the space:
#
# $$c_i = (p_i + k_{i \bmod m}) \bmod 27, \qquad\qquad p_i = (c_i - k_{i \bmod m}) \bmod 27 .$$
#
# The key `"clap"` gives the shifts 2, 11, 0, 15, 2, … and turns `"hello world"` into `"jpl qkwctwd"`: h + c = 7 + 2 = 9 → j, e + l = 15 → p, …, space + l = 37 − 27 = 10 → k. The three l's come out as l, space and w: a symbol's encryption depends on its position, so counting letters does not break this cipher as it breaks a fixed substitution.
#
# Write `cipher`, which encrypts a message, and then `decipher`, which undoes it.

# %% nbgrader={"grade": false, "grade_id": "cipher", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
def cipher(plaintext, key):
    """Encrypt a message with the Vigenère cipher.

    Parameters
    ----------
    plaintext : str
        The message, written with the symbols of ``ALPHABET``.
    key : str
        A non-empty key written with ``ALPHABET``; it repeats along the message.

    Returns
    -------
    str
        The cipher text, as long as ``plaintext``.
    """
    ### BEGIN SOLUTION
    repeated = (key * len(plaintext))[: len(plaintext)]
    symbols = [
        ALPHABET[(ALPHABET.index(p) + ALPHABET.index(k)) % len(ALPHABET)]
        for p, k in zip(plaintext, repeated)
    ]
    return "".join(symbols)
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "decipher", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
def decipher(ciphertext, key):
    """Undo ``cipher``: ``decipher(cipher(message, key), key) == message``.

    Parameters
    ----------
    ciphertext : str
        An encrypted message, written with the symbols of ``ALPHABET``.
    key : str
        The key it was encrypted with.

    Returns
    -------
    str
        The plain text, as long as ``ciphertext``.
    """
    ### BEGIN SOLUTION
    repeated = (key * len(ciphertext))[: len(ciphertext)]
    return "".join(
        ALPHABET[(ALPHABET.index(c) - ALPHABET.index(k)) % len(ALPHABET)]
        for c, k in zip(ciphertext, repeated)
    )
    ### END SOLUTION


# %%
secret = cipher("hello world", KEY)
print(repr(secret), "->", repr(decipher(secret, KEY)))  # 'jpl qkwctwd' -> 'hello world'

# %% course={"task": "cipher"} nbgrader={"grade": true, "grade_id": "cipher__by_hand", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that cipher reproduces examples worked out by hand.
out = cipher("hello world", "clap")
repeated = cipher("aaaaaaaaa", "clap")
wrapped = cipher("z ", "b")
assert len(out) == 11, f"cipher('hello world', 'clap') gave {out!r}, {len(out)} symbols for 11: repeat the key along the whole message"
assert out != "fulxmpw pad", "cipher('hello world', 'clap') gave 'fulxmpw pad': each symbol moved back; add the key's shift to encrypt"
assert wrapped == " a", f"cipher('z ', 'b') gave {wrapped!r}, expected ' a': wrap around after the space, modulo 27 = len(ALPHABET)"
assert out == "jpl qkwctwd", f"cipher('hello world', 'clap') gave {out!r}, expected 'jpl qkwctwd'"
assert repeated == "clapclapc", "the key should repeat along the whole message"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("cipher__by_hand")  # this submission's own inputs


def shifted(text, key, sign):
    symbols = "abcdefghijklmnopqrstuvwxyz "  # ALPHABET
    out = ""
    for i, s in enumerate(text):
        out += symbols[(symbols.index(s) + sign * symbols.index(key[i % len(key)])) % 27]
    return out


def drawn_text(low, high, first=0):
    """Symbols of ALPHABET from index ``first`` on, a length drawn from [low, high)."""
    return "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz ")[first:], size=int(rng.integers(low, high))))


any_key = drawn_text(1, 8, first=1)
plain = drawn_text(3, 15)
null_key = "a" * int(rng.integers(1, 5))  # the first letter of the alphabet, repeated
short = drawn_text(1, 6)
long_key = drawn_text(len(short) + 1, len(short) + 8, first=1)
cases = [(drawn_text(low, high), drawn_text(k_low, k_high, first=1)) for low, high in [(1, 6), (8, 20), (25, 40)]
         for k_low, k_high in [(1, 3), (3, 7), (7, 12)]]
plain_again, short_wanted = str(plain), shifted(short, long_key, 1)
wanted = [shifted(message, key, 1) for message, key in cases]
empty = cipher("", any_key)
unchanged = cipher(plain, null_key)
longer = cipher(short, long_key)
assert empty == "", "an empty message should give an empty cipher text"
assert unchanged == plain_again, "the first letter of the alphabet as the key shifts by nothing and should change nothing"
assert longer == short_wanted, "a key longer than the message: use only as much of the key as the message needs"
ciphered = [cipher(message, key) for message, key in cases]
for secret, want in zip(ciphered, wanted, strict=True):
    assert secret == want, "cipher is wrong on other messages and keys"
### END HIDDEN TESTS

# %% course={"task": "decipher"} nbgrader={"grade": true, "grade_id": "cipher__round_trip", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that decipher undoes cipher: an example by hand, then many messages and keys.
out = decipher("jpl qkwctwd", "clap")
below_zero = decipher(" a", "b")
assert len(out) == 11, f"decipher('jpl qkwctwd', 'clap') gave {out!r}, {len(out)} symbols for 11: repeat the key along the whole message"
assert out != "l losvwrvgd", "decipher('jpl qkwctwd', 'clap') gave 'l losvwrvgd': it added the key again; subtract it to undo cipher"
assert below_zero == "z ", f"decipher(' a', 'b') gave {below_zero!r}, expected 'z ': wrap around below a, modulo 27 = len(ALPHABET)"
assert out == "hello world", f"decipher('jpl qkwctwd', 'clap') gave {out!r}, expected 'hello world'"


# (message, key, cipher text): messages of 1 to 24 symbols, each with three keys; the cipher texts are the test's own,
# so a mistake in cipher costs cipher's point, not this one
examples = [
    ("w", "clap", "y"), ("w", "k", "f"), ("w", "a key", "w"),
    ("rnhi", "clap", "tyhx"), ("rnhi", "k", "axrs"), ("rnhi", "a key", "rmrm"),
    ("bcaevry", "clap", "dnatxby"), ("bcaevry", "k", "lmkoeah"), ("bcaevry", "a key", "bbkisrx"),
    ("nq tropzhwsakxoautwecxao", "clap", "pa htzpnjgspmhopwdwtehac"),
    ("nq tropzhwsakxoautwecxao", "k", "x jcayzirfbkugykdcfomgky"),
    ("nq tropzhwsakxoautwecxao", "a key", "npjxoooilts ualatc bcwks"),
]
wanted, keys, secrets = ([example[i] for example in examples] for i in range(3))  # the expected messages, keys and cipher texts
backs = [decipher(secret, key) for message, key, secret in examples]
for i, back in enumerate(backs):
    assert back == wanted[i], f"decipher({secrets[i]!r}, {keys[i]!r}) gave {back!r}, expected {wanted[i]!r}"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("cipher__round_trip")  # this submission's own inputs


def shifted(text, key, sign):
    symbols = "abcdefghijklmnopqrstuvwxyz "  # ALPHABET
    out = ""
    for i, s in enumerate(text):
        out += symbols[(symbols.index(s) + sign * symbols.index(key[i % len(key)])) % 27]
    return out


def drawn_text(low, high, first=0):
    """Symbols of ALPHABET from index ``first`` on, a length drawn from [low, high)."""
    return "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz ")[first:], size=int(rng.integers(low, high))))


# below a: a cipher text of early letters under a key of late ones
low_letters = "".join(rng.choice(list("abcde"), size=int(rng.integers(2, 8))))
late_key = drawn_text(1, 5, first=20)
repeat_key = drawn_text(2, 6, first=1)
repeats = int(rng.integers(2, 5))
cases = [(drawn_text(low, high), drawn_text(k_low, k_high, first=1)) for low, high in [(1, 6), (8, 20), (25, 40)]
         for k_low, k_high in [(1, 3), (3, 7), (7, 12)]]
below_wanted, repeated_wanted = shifted(low_letters, late_key, -1), "a" * (repeats * len(repeat_key) + 1)
wanted = [shifted(message, key, -1) for message, key in cases]
below_a = decipher(low_letters, late_key)
repeated = decipher(repeat_key * repeats + repeat_key[0], repeat_key)
assert below_a == below_wanted, "deciphering should wrap around below a"
assert repeated == repeated_wanted, "decipher should repeat the key along the message"
deciphered = [decipher(message, key) for message, key in cases]
for plain, want in zip(deciphered, wanted, strict=True):
    assert plain == want, "decipher is wrong on other messages and keys"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "one_hot_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part B: one-hot vectors (1 point)
#
# The model reads each token as a one-hot vector of length 29. The encoder reads the cipher text and `END`; the decoder reads `START` and the plain text, and predicts the plain text and `END`. With both extra tokens, `"ab"` gives
#
# $$\texttt{one\_hot\_encode("ab", start=True, end=True)} = \begin{bmatrix} e_{27} \\ e_{0} \\ e_{1} \\ e_{28} \end{bmatrix} \quad\text{(shape (4, 29))},$$
#
# where $e_j$ is the row of zeros with a 1 in column $j$. Write `one_hot_encode` with `tokens_of`, returning a float32 array.

# %% nbgrader={"grade": false, "grade_id": "one_hot", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
def one_hot_encode(text, start=False, end=False):
    """One-hot vectors of the tokens of ``text``, optionally framed by START and END.

    Parameters
    ----------
    text : str
        Symbols of ``ALPHABET``.
    start : bool
        Put a START token before the text.
    end : bool
        Put an END token after the text.

    Returns
    -------
    numpy.ndarray, shape=(L, 29), dtype=float32
        Row i is the one-hot vector of token i; ``L = len(text) + start + end``.

    Raises
    ------
    ValueError
        If ``text`` holds characters outside ``ALPHABET`` (the message names them).
    """
    ### BEGIN SOLUTION
    tokens = tokens_of(text)
    if start:
        tokens = [START] + tokens
    if end:
        tokens = tokens + [END]
    vectors = np.zeros((len(tokens), N_SYMBOLS), dtype=np.float32)
    vectors[np.arange(len(tokens)), tokens] = 1
    return vectors
    ### END SOLUTION


# %%
print(one_hot_encode("ab", start=True, end=True).argmax(axis=1))  # [27  0  1 28]

# %% course={"task": "one_hot"} nbgrader={"grade": true, "grade_id": "one_hot__tokens", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that one_hot_encode places the symbols, START and END in float32 rows.
x = one_hot_encode("ab", start=True, end=True)
expected = np.zeros((4, 29), dtype=np.float32)
expected[[0, 1, 2, 3], [27, 0, 1, 28]] = 1
assert x.shape == (4, 29), x.shape
assert x.dtype == np.float32, f"dtype {x.dtype}, expected float32"
assert x.argmax(axis=1)[-1] == 28, f"tokens {x.argmax(axis=1)}, expected [27 0 1 28]: with end=True, END (28) comes after the text"
assert x.argmax(axis=1)[0] == 27, f"tokens {x.argmax(axis=1)}, expected [27 0 1 28]: with start=True, START (27) opens the sequence"
assert np.array_equal(x, expected), f"tokens {x.argmax(axis=1)}, expected [27 0 1 28]"
last_two = one_hot_encode("z ")
assert np.array_equal(last_two.argmax(axis=1), [25, 26]), "z and the space are tokens 25 and 26"
try:
    one_hot_encode("Hi!")
    error = None  # no error raised
except ValueError as err:
    error = str(err)
assert error is not None, "one_hot_encode('Hi!') should raise a ValueError"
assert "'H'" in error and "'!'" in error, f"the error should name 'H' and '!': {error}"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("one_hot__tokens")  # this submission's own inputs
symbols = list("abcdefghijklmnopqrstuvwxyz ")  # ALPHABET: token i is symbols[i]
one_token, two_tokens = rng.integers(0, 27, size=1), rng.integers(0, 27, size=2)
long_tokens = rng.integers(0, 27, size=int(rng.integers(8, 30)))
one, two, long_text = ("".join(symbols[i] for i in tokens) for tokens in (one_token, two_tokens, long_tokens))
shapes = [(1, 29), (2, 29), (3, 29), (len(long_tokens) + 2, 29)]
end_wanted, start_wanted = [int(one_token[0]), 28], [27, *two_tokens.tolist()]
both_wanted = [27, *long_tokens.tolist(), 28]
empty = one_hot_encode("", start=True)
c_end = one_hot_encode(one, end=True)
ba_start = one_hot_encode(two, start=True)
both = one_hot_encode(long_text, True, True)
assert (empty.shape, c_end.shape, ba_start.shape, both.shape) == tuple(shapes), (
    f"with START, END or both, the shapes are {empty.shape}, {c_end.shape}, {ba_start.shape} and {both.shape}: "
    "one row per symbol, the START and END rows included, each as wide as the vocabulary"
)
assert np.array_equal(empty, np.eye(29, dtype=np.float32)[[27]]), "'' with START"
assert np.array_equal(c_end.argmax(axis=1), end_wanted), "one symbol with END"
assert np.array_equal(ba_start.argmax(axis=1), start_wanted), "two symbols with START"
assert np.all(both.sum(axis=1) == 1), "every row should hold a single one"
assert np.array_equal(both.argmax(axis=1), both_wanted), "a longer message with START and END"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "data_text", "locked": true, "schema_version": 3, "solution": false}
# ## The data: messages of every length, padded into batches
#
# `cipher_data.npz`, next to this notebook, holds 100-symbol texts from Python's documentation, lowercased and reduced to a–z and spaces, as tokens of shape (100, N), a text per column. About one text in ten is *held out*: never trained on, it tells whether the model learned the cipher rather than the sentences.
#
# Decrypting with a known key needs no English: plain symbol $i$ is cipher symbol $i$ shifted back by key symbol $i \bmod 4$. To teach the rule rather than the language, half of the training messages are pieces of training texts, and half are uniformly random symbols, which no knowledge of English helps to guess.

# %% [markdown] nbgrader={"grade": false, "grade_id": "data_batches_text", "locked": true, "schema_version": 3, "solution": false}
# A batch draws its message lengths evenly from one quarter of 1 to `MAX_LENGTH` = 48 (1–12, 13–24, 25–36 or 37–48): every length is equally likely, and short batches are cheap. Every message starts at the key's first symbol. `make_batch` *pads* every message to the longest, $T$, with rows of zeros after its `END`; `lengths[n]` counts the real positions of column n. The masks keep attention off the padding, and the loss ignores it.
#
# | array | shape | holds |
# |---|---|---|
# | `source` | (T, N, 29) | one-hot cipher text, `END`, then zero rows |
# | `decoder_input` | (T, N, 29) | one-hot `START`, the plain text, then zero rows |
# | `target` | (T, N) | the plain text, `END`, then `END` again at padded positions (never counted) |
# | `lengths` | (N,) | message length + 1 for every column |

# %% nbgrader={"grade": false, "grade_id": "encrypt_tokens", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
MAX_LENGTH = 48  # the longest message the model trains on: 12 turns of the 4-symbol key
KEY_TOKENS = np.array(tokens_of(KEY))


def encrypt_tokens(plain):
    """Vigenère-encrypt a 1-D array of alphabet tokens with ``KEY``, starting at key symbol 0."""
    shifts = np.resize(KEY_TOKENS, len(plain))  # the key, repeated to the message's length
    return (np.asarray(plain) + shifts) % len(ALPHABET)


# %% nbgrader={"grade": false, "grade_id": "make_batch", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
def make_batch(messages):
    """Encrypt plain-text messages of any lengths and pad them into one batch.

    Parameters
    ----------
    messages : list of 1-D arrays of alphabet tokens, N of them

    Returns
    -------
    source : numpy.ndarray, shape=(T, N, 29), dtype=float32
        One-hot cipher text, then END, then padding (rows of zeros).
    decoder_input : numpy.ndarray, shape=(T, N, 29), dtype=float32
        One-hot START, then the plain text, then padding (rows of zeros).
    target : numpy.ndarray, shape=(T, N), dtype=int64
        The plain text, then END; END again at every padded position.
    lengths : numpy.ndarray, shape=(N,), dtype=int64
        The real (unpadded) positions of each column: message length + 1.

    T is the longest message's length + 1.
    """
    lengths = np.array([len(m) + 1 for m in messages], dtype=np.int64)
    T, N = lengths.max(), len(messages)
    source = np.zeros((T, N, N_SYMBOLS), dtype=np.float32)
    decoder_input = np.zeros((T, N, N_SYMBOLS), dtype=np.float32)
    target = np.full((T, N), END, dtype=np.int64)
    for n, plain in enumerate(messages):
        L = len(plain)
        source[np.arange(L), n, encrypt_tokens(plain)] = 1
        source[L, n, END] = 1
        decoder_input[0, n, START] = 1
        decoder_input[np.arange(1, L + 1), n, plain] = 1
        target[:L, n] = plain
    return source, decoder_input, target, lengths


# %% nbgrader={"grade": false, "grade_id": "sample_messages", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
def sample_messages(rng, texts, n, max_length=MAX_LENGTH, random_share=0.5):
    """Draw ``n`` training messages whose lengths lie in one quarter of 1..max_length.

    The quarter (1-12, 13-24, 25-36 or 37-48 for 48) is drawn first, then each
    length evenly within it. Over many batches every length from 1 to
    ``max_length`` is equally likely, yet each batch is padded only to the
    top of its quarter, which makes a step about half as costly as padding
    every batch to ``max_length``. A share ``random_share`` of the messages
    are strings of uniformly random symbols, which no knowledge of English
    helps to guess; the others are pieces of the corpus ``texts`` (alphabet
    tokens, shape (L, M): M texts of L symbols each) at random places.
    """
    quarter = max_length // 4
    low = quarter * rng.integers(4) + 1
    messages = []
    for length in rng.integers(low, low + quarter, size=n):
        if rng.random() < random_share:
            messages.append(rng.integers(0, len(ALPHABET), size=length))
        else:
            column, start = rng.integers(texts.shape[1]), rng.integers(texts.shape[0] - length + 1)
            messages.append(texts[start : start + length, column].astype(np.int64))
    return messages


# %%
data = load_cipher_data("cipher_data.npz")
assert data.meta["alphabet"] == ALPHABET and data.meta["key"] == KEY
train_texts, held_out_texts = data.train_plain, data.held_out_plain  # (100, N) alphabet tokens
print(f"{train_texts.shape[1]} training texts and {held_out_texts.shape[1]} held-out texts of {train_texts.shape[0]} symbols")

rng = np.random.default_rng(0)
source, decoder_input, target, lengths = make_batch(sample_messages(rng, train_texts, 4, max_length=12))
print("source", source.shape, " decoder input", decoder_input.shape, " target", target.shape, " lengths", lengths)
for n in range(4):
    real = lengths[n] - 1  # the message's own symbols
    print(f"{text_of(source[:real, n].argmax(axis=-1))!r:16} decrypts to {text_of(target[:real, n])!r}")


# %% [markdown] nbgrader={"grade": false, "grade_id": "attention_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part C: attention, one head then many (6 points)
#
# Attention lets each *query* collect information from a set of *key*–*value* pairs. With queries $Q$ (t rows, $d_k$ wide), keys $K$ (T rows, $d_k$ wide) and values $V$ (T rows, $d_v$ wide), scaled dot-product attention (Vaswani et al., 2017) scores every query against every key, turns each query's scores into weights with a softmax, and mixes the values with them:
#
# $$\alpha = \operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right), \qquad C = \alpha V .$$
#
# Each row of the (t, T) matrix $\alpha$ sums to one. You met this in notebook 03: the query was the decoder state, the keys the encoder states times $W_\alpha$, the values the encoder states (Luong's general score, $Q K^\top$ for one query). A Transformer learns a projection for each of the three, and divides by $\sqrt{d_k}$: a dot product of $d_k$ random entries of size about one spreads by about $\sqrt{d_k}$, so unscaled, wider heads push the softmax towards one key, where its gradients vanish. The cell below shows both.

# %%
# The spread of q · k for random q and k of width d_k, and the weight a softmax over 10 keys gives the largest
rng = np.random.default_rng(0)
for d_k in (4, 16, 64, 256):
    q, k = rng.normal(size=(2, 1000, 10, d_k))  # 1000 queries, each against 10 keys
    dots = (q * k).sum(axis=-1)  # (1000, 10)
    raw, scaled = (mg.nnet.softmax(e).data.max(axis=1).mean() for e in (dots, dots / np.sqrt(d_k)))
    print(f"d_k = {d_k:3d}: spread of q · k {dots.std():4.1f}, largest weight {raw:.2f} unscaled, {scaled:.2f} scaled")

# %% [markdown] nbgrader={"grade": false, "grade_id": "attention_masks_text", "locked": true, "schema_version": 3, "solution": false}
# **Masks.** Some query–key pairs must be ruled out: padding, and (in the decoder) positions yet to be predicted. Each sequence of a batch gets its own (t, T) mask, so `mask` has shape (t, N, T), and `mask[i, n, j]` is `False` where query $i$ of sequence $n$ may not read key $j$. Such a pair gets the score `BLOCKED` $= -10^9$ *before* the softmax: $e^{-10^9}$ is exactly 0 in floating point, so its weight is 0 and the row still sums to one (zeroing weights after the softmax would not). Part D builds the masks.

# %% [markdown] nbgrader={"grade": false, "grade_id": "attention_head_text", "locked": true, "schema_version": 3, "solution": false}
# **One head, on a batch.** `einsum` names the axes (it tells `t` and `T` apart):
#
# | step | shapes | `mg.einsum` |
# |---|---|---|
# | score | (t, N, d_k) with (T, N, d_k) → (t, N, T) | `"tNk,TNk->tNT"`, then divide by $\sqrt{d_k}$ |
# | mask and weigh | softmax over the last axis (T), masked pairs blocked | `ops.softmax(scores, axis=-1, mask=mask)` |
# | mix | (t, N, T) with (T, N, d_v) → (t, N, d_v) | `"tNT,TNk->tNk"` |
#
# `ops.softmax` gives the weights of `mg.nnet.softmax(mg.where(mask, scores, BLOCKED), axis=-1)`, faster; either is correct. Keep float32: divide by `np.sqrt(np.float32(d_k))` (a float64 number makes a float32 tensor float64).
#
# Write `scaled_dot_product_attention`, returning the mixed values and the weights.

# %% nbgrader={"grade": false, "grade_id": "attention", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
BLOCKED = np.float32(-1e9)  # the score of a masked pair: its softmax weight is exactly 0


def scaled_dot_product_attention(q, k, v, mask=None):
    """One head of attention: every query mixes the values of the keys of its own sequence.

    Parameters
    ----------
    q : array_like, shape=(t, N, d_k)
        The queries.
    k : array_like, shape=(T, N, d_k)
        The keys.
    v : array_like, shape=(T, N, d_v)
        The values.
    mask : Optional[numpy.ndarray], shape=(t, N, T), dtype=bool
        Where ``mask[i, n, j]`` is False, query i of sequence n gives key j weight 0.

    Returns
    -------
    out : mygrad.Tensor, shape=(t, N, d_v)
        The mixed values, ``weights`` times ``v`` for every sequence.
    weights : mygrad.Tensor, shape=(t, N, T)
        softmax(q k^T / sqrt(d_k)) over the keys, masked pairs 0; each query's weights sum to one.
    """
    ### BEGIN SOLUTION
    d_k = q.shape[-1]
    scores = mg.einsum("tNk,TNk->tNT", q, k) / np.sqrt(np.float32(d_k))
    weights = ops.softmax(scores, axis=-1, mask=mask)  # a masked key gets weight exactly 0
    return mg.einsum("tNT,TNk->tNk", weights, v), weights
    ### END SOLUTION


# %%
rng = np.random.default_rng(0)
q, k, v = (rng.normal(size=shape).astype(np.float32) for shape in [(2, 3, 4), (5, 3, 4), (5, 3, 6)])
mask = np.ones((2, 3, 5), dtype=bool)
mask[:, 0, 3:] = False  # sequence 0 has 3 real keys
out, weights = scaled_dot_product_attention(q, k, v, mask)
print("output", out.shape, out.dtype, " weights", weights.shape)  # (2, 3, 6) float32  (2, 3, 5)
print("sequence 0's weights:\n", np.round(np.asarray(weights)[:, 0], 3))  # zeros in the last two columns
if not np.allclose(np.asarray(weights).sum(axis=-1), 1, atol=1e-5):
    print("warning: each query's weights should sum to one: mask the scores, then take the softmax over the keys")

# %% course={"task": "attention"} nbgrader={"grade": true, "grade_id": "attention__by_hand", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check one head of attention on a case worked out by hand (no mask), and that the gradient reaches q, k and v.
# N = 2 sequences, t = 2 queries, T = 3 keys, d_k = 4 (so sqrt(d_k) = 2), d_v = 2
q = np.array([[[1, 1, 1, 1], [0, 2, 0, 0]], [[0, 0, 0, 0], [2, 0, 0, 2]]], dtype=np.float32)  # (t, N, d_k)
k = np.array([[[2, 0, 0, 0], [1, 0, 0, 0]], [[0, 0, 0, 0], [0, 1, 0, 0]], [[1, 1, 1, 1], [0, 0, 0, 1]]], dtype=np.float32)
v = np.array([[[1, 0], [2, 0]], [[0, 1], [0, 2]], [[1, 1], [4, 4]]], dtype=np.float32)  # (T, N, d_v)
# sequence 0, query 0: q . k = (2, 0, 4), divided by sqrt(4) = 2: scores (1, 0, 2)
by_hand = np.exp([1, 0, 2]) / np.exp([1, 0, 2]).sum()
scores = np.einsum("tNk,TNk->tNT", q, k)
want = np.exp(scores / 2) / np.exp(scores / 2).sum(axis=-1, keepdims=True)  # (t, N, T)
unscaled = np.exp(scores) / np.exp(scores).sum(axis=-1, keepdims=True)
by_d_k = np.exp(scores / 4) / np.exp(scores / 4).sum(axis=-1, keepdims=True)
q_tensor, k_tensor, v_tensor = mg.tensor(q), mg.tensor(k), mg.tensor(v)
out, weights = scaled_dot_product_attention(q_tensor, k_tensor, v_tensor)
a = np.asarray(weights)
assert out.shape == (2, 2, 2), f"output shape {out.shape}, expected (t, N, d_v) = (2, 2, 2)"
assert out.dtype == np.float32, f"output dtype {out.dtype}: a float64 constant crept in; divide by np.sqrt(np.float32(d_k))"
assert a.shape == (2, 2, 3), f"weights of shape {a.shape}, expected (t, N, T) = (2, 2, 3)"
assert np.allclose(a.sum(axis=-1), 1, atol=1e-5), (
    "each query's weights over the T keys should sum to one: take the softmax over the keys, the last axis"
)
assert not np.allclose(a, unscaled, atol=1e-5), "the scores are not divided by sqrt(d_k): scale them"
assert not np.allclose(a, by_d_k, atol=1e-5), "the scores are divided by d_k = 4; divide by its square root, sqrt(d_k) = 2"
assert np.allclose(a[0, 0], by_hand, atol=1e-5), (
    f"sequence 0, query 0: weights {np.round(a[0, 0], 4)}, expected softmax(1, 0, 2) = {np.round(by_hand, 4)}"
)
assert np.allclose(a, want, atol=1e-5), f"the weights are\n{np.round(a, 4)}\nexpected\n{np.round(want, 4)}"
assert np.allclose(out.data, np.einsum("tNT,TNk->tNk", want, v), atol=1e-5), (
    "the weights are right, the output is not: mix each sequence's values, weights (t, N, T) times v (T, N, d_v)"
)
out.sum().backward()  # training needs a gradient for q, k and v
grads = [q_tensor.grad, k_tensor.grad, v_tensor.grad]
assert grads[0] is not None and np.abs(grads[0]).sum() > 0, "q got no gradient: compute with MyGrad operations (no .data)"
assert grads[1] is not None and np.abs(grads[1]).sum() > 0, "k got no gradient: compute with MyGrad operations (no .data)"
assert grads[2] is not None and np.abs(grads[2]).sum() > 0, "v got no gradient: compute with MyGrad operations (no .data)"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("attention__by_hand")  # this submission's own inputs
t, N, T = int(rng.integers(1, 6)), int(rng.integers(2, 6)), int(rng.integers(2, 8))
d_k, d_v = int(rng.integers(3, 9)), int(rng.integers(1, 6))
q, k, v = (rng.normal(size=shape).astype(np.float32) for shape in [(t, N, d_k), (T, N, d_k), (T, N, d_v)])
scores = np.einsum("tNk,TNk->tNT", q, k) / np.sqrt(d_k)
want = np.exp(scores - scores.max(axis=-1, keepdims=True))
want = want / want.sum(axis=-1, keepdims=True)
weights_shape, out_shape = (t, N, T), (t, N, d_v)
out, weights = scaled_dot_product_attention(mg.tensor(q), mg.tensor(k), mg.tensor(v))
assert np.shape(weights) == weights_shape and np.shape(out) == out_shape, (
    f"other sizes: weights {np.shape(weights)} and output {np.shape(out)}, expected (t, N, T) and (t, N, d_v)"
)
assert np.allclose(np.asarray(weights), want, atol=1e-5), (
    "other sizes: the weights differ from softmax(q k^T / sqrt(d_k)) over the keys, sequence by sequence"
)
assert np.allclose(np.asarray(out), np.einsum("tNT,TNk->tNk", want, v), atol=1e-4), (
    "other sizes: the output differs from the weights times the values, sequence by sequence"
)
### END HIDDEN TESTS

# %% course={"task": "attention"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "attention__mask", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that masked pairs get exactly zero weight, sequence by sequence, and the other weights of a row sum to one.
rng = np.random.default_rng(22)
q, k, v = (rng.normal(size=shape).astype(np.float32) for shape in [(3, 2, 4), (3, 2, 4), (3, 2, 2)])
mask = np.array([
    [[True, False, False], [True, True, True]],  # query 0: sequence 0 reads key 0 only, sequence 1 every key
    [[True, True, False], [True, True, True]],
    [[False, True, True], [True, True, False]],
])  # (t, N, T) = (3, 2, 3)
hidden = ~mask  # the pairs the mask hides
scores = np.where(mask, np.einsum("tNk,TNk->tNT", q, k) / 2, -np.inf)
want = np.exp(scores - scores.max(axis=-1, keepdims=True))
want = want / want.sum(axis=-1, keepdims=True)
out, weights = scaled_dot_product_attention(mg.tensor(q), mg.tensor(k), mg.tensor(v), mask.copy())
a = np.asarray(weights)
assert a.shape == (3, 2, 3), f"weights of shape {a.shape}, expected (t, N, T) = (3, 2, 3)"
assert not np.array_equal(a[:, 1] == 0, hidden[:, 0]), (
    "sequence 1's weights follow sequence 0's mask: sequence n has its own mask[:, n, :]"
)
assert not np.array_equal(a == 0, hidden.transpose(2, 1, 0)), (
    "the mask is read transposed: mask[i, n, j] is about query i (axis 0) and key j (the last axis)"
)
assert np.all(a[hidden] == 0), (
    "a pair the mask hides got a non-zero weight: block it before the softmax; mask[i, n, j] is about query i "
    "(axis 0) and key j (the last axis)"
)
assert np.allclose(a.sum(axis=-1), 1, atol=1e-5), (
    "with a mask, a query's weights sum to less than one: mask the scores before the softmax, not the weights after it"
)
assert np.all(a[mask] > 0), "a pair the mask allows got zero weight: sequence n has its own mask[:, n, :]"
assert np.allclose(a, want, atol=1e-5), f"with the mask, the weights are\n{np.round(a, 4)}\nexpected\n{np.round(want, 4)}"
assert np.allclose(out.data, np.einsum("tNT,TNk->tNk", want, v), atol=1e-5), "with a mask, the output differs"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("attention__mask")  # this submission's own inputs
t, N, d_k, d_v = int(rng.integers(2, 6)), int(rng.integers(2, 5)), int(rng.integers(3, 8)), int(rng.integers(1, 5))
T = t + int(rng.integers(1, 5))  # fewer queries than keys
q, k, v = (rng.normal(size=shape).astype(np.float32) for shape in [(t, N, d_k), (T, N, d_k), (T, N, d_v)])
# every row keeps one key and hides another, by construction: a kept and a hidden key drawn apart
kept = rng.integers(0, T, size=(t, N))
blocked = (kept + rng.integers(1, T, size=(t, N))) % T
rect = rng.random((t, N, T)) < 0.6
rect[np.arange(t)[:, None], np.arange(N), kept] = True
rect[np.arange(t)[:, None], np.arange(N), blocked] = False
scores = np.where(rect, np.einsum("tNk,TNk->tNT", q, k) / np.sqrt(d_k), -np.inf)
want = np.exp(scores - scores.max(axis=-1, keepdims=True))
want = want / want.sum(axis=-1, keepdims=True)
open_scores = np.einsum("tNk,TNk->tNT", q, k) / np.sqrt(d_k)
want_open = np.exp(open_scores - open_scores.max(axis=-1, keepdims=True))
want_open = want_open / want_open.sum(axis=-1, keepdims=True)
weights_shape, all_pairs = (t, N, T), np.ones((t, N, T), dtype=bool)
out, weights = scaled_dot_product_attention(mg.tensor(q), mg.tensor(k), mg.tensor(v), rect.copy())
open_mask = scaled_dot_product_attention(mg.tensor(q), mg.tensor(k), mg.tensor(v), all_pairs)[1]
assert np.shape(weights) == weights_shape, f"fewer queries than keys: weights of shape {np.shape(weights)}, expected (t, N, T)"
assert np.allclose(np.asarray(weights), want, atol=1e-5), "fewer queries than keys, with a mask: the weights differ"
assert np.allclose(np.asarray(out), np.einsum("tNT,TNk->tNk", want, v), atol=1e-4), (
    "fewer queries than keys, with a mask: the output differs"
)
assert np.allclose(np.asarray(open_mask), want_open, atol=1e-5), "a mask that allows every pair should change nothing"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "attention_picture_text", "locked": true, "schema_version": 3, "solution": false}
# **Many heads.** Multi-head attention runs $h$ heads side by side. Head $j$ projects queries, keys and values to $d_k = \lfloor d/h \rfloor$ dimensions with its own learned matrices, so each head can look for its own pattern; $W_o$ maps the heads' outputs, $h \cdot d_k$ wide together, back to width $d$. With one-hot tokens $d = 29$, a prime: 4 heads of $d_k = 7$ give 28, which $W_o$ maps to 29 (models with a learned embedding pick a width the heads divide: Vaswani et al. used 8 heads of 64):
#
# $$\text{head}_j = \operatorname{Attention}\big(Q W_q^{(j)},\; K W_k^{(j)},\; V W_v^{(j)}\big), \qquad \operatorname{MHA}(Q, K, V) = \big[\text{head}_1 \;\cdots\; \text{head}_h\big]\, W_o .$$
#
# ![Left: one head scores queries against keys, scales, blocks masked pairs, takes a softmax over the keys and mixes the values. Right: h such heads side by side, joined and mapped back to width d by W_o](figures/multihead_attention.svg)
#
# *Figure: left, one $\text{head}_j$ of the formula above, your `scaled_dot_product_attention`; right, the $h$ heads side by side, joined by $W_o$, with the shapes on a batch.*

# %% [markdown] nbgrader={"grade": false, "grade_id": "attention_batch_text", "locked": true, "schema_version": 3, "solution": false}
# **On a batch.** Stack the heads' matrices into tensors `Wq`, `Wk`, `Wv` of shape (h, d, d_k). Heads never mix, so one call of your `scaled_dot_product_attention` serves them all if each head of each sequence counts as a sequence of its own:
#
# | step | shapes | how |
# |---|---|---|
# | project | (t, N, d) with (h, d, d_k) → (t, N, h, d_k) | `mg.einsum("tNd,hdk->tNhk", Q, Wq)`, keys and values alike |
# | fold heads into the batch | → (t, N·h, d_k) | `reshape`: head j of sequence n is sequence n·h + j |
# | a mask per head | (t, N, T) → (t, N·h, T) | `np.repeat(mask, h, axis=1)` |
# | attend | → outputs (t, N·h, d_k), weights (t, N·h, T) | `scaled_dot_product_attention` |
# | unfold, join | weights → `a_ij` (t, N, h, T); outputs → (t, N, h·d_k), head 0 first, then $W_o$ → (t, N, d) | `reshape`, `self.Wo` |

# %% [markdown] nbgrader={"grade": false, "grade_id": "attention_task_text", "locked": true, "schema_version": 3, "solution": false}
# Complete `MultiheadAttention`: in `__init__`, `Wq`, `Wk`, `Wv` from `glorot_normal(h, d, d_k)` and `Wo`, a MyNN `dense` layer from $h \cdot d_k$ to $d$ with `weight_initializer=glorot_normal` and `bias=False`; in `__call__`, attention as in the table, keeping the weights in `self.a_ij`. The tests set `Wq`, `Wk`, `Wv` and `Wo.weight` themselves, so read those attributes, and keep MyGrad operations all the way (no `.data`, `np.asarray` or `astype`), for their gradients.

# %% nbgrader={"grade": false, "grade_id": "multihead_attention", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
class MultiheadAttention:
    """Multi-head scaled dot-product attention.

    Attributes
    ----------
    Wq, Wk, Wv : mygrad.Tensor, shape=(h, d, d // h), dtype=float32
        One projection matrix per head for the queries, keys and values,
        initialised with ``glorot_normal``.
    Wo : mynn.layers.dense.dense
        Joins the heads: (h * (d // h)) -> d, ``glorot_normal`` weights, no bias.
    a_ij : mygrad.Tensor, shape=(t, N, h, T)
        The attention weights of the latest call (None before the first one).
    """

    def __init__(self, dim, n_head=3):
        """
        Parameters
        ----------
        dim : int
            The model width d.
        n_head : int
            The number of heads h; each works in d_k = dim // n_head dimensions.
        """
        self.a_ij = None
        ### BEGIN SOLUTION
        d_k = dim // n_head
        self.Wq = glorot_normal(n_head, dim, d_k)
        self.Wk = glorot_normal(n_head, dim, d_k)
        self.Wv = glorot_normal(n_head, dim, d_k)
        self.Wo = dense(n_head * d_k, dim, weight_initializer=glorot_normal, bias=False)
        ### END SOLUTION

    def __call__(self, Q, K, V, mask=None):
        """Attend from the queries to the keys and mix the values.

        Parameters
        ----------
        Q : array_like, shape=(t, N, d)
            The queries.
        K : array_like, shape=(T, N, d)
            The keys.
        V : array_like, shape=(T, N, d)
            The values (often the same array as the keys).
        mask : Optional[numpy.ndarray], shape=(t, N, T), dtype=bool
            One (t, T) mask per sequence of the batch: where ``mask[i, n, j]``
            is False, query i of sequence n gives key j zero weight, in every head.

        Returns
        -------
        mygrad.Tensor, shape=(t, N, d)
        """
        ### BEGIN SOLUTION
        h, _, d_k = self.Wq.shape
        (t, N), T = Q.shape[:2], K.shape[0]
        q = mg.einsum("tNd,hdk->tNhk", Q, self.Wq).reshape(t, N * h, d_k)  # head j of sequence n: column n*h + j
        k = mg.einsum("TNd,hdk->TNhk", K, self.Wk).reshape(T, N * h, d_k)
        v = mg.einsum("TNd,hdk->TNhk", V, self.Wv).reshape(T, N * h, d_k)
        if mask is not None:
            mask = np.repeat(mask, h, axis=1)  # (t, N*h, T): sequence n's mask for each of its heads
        mixed, weights = scaled_dot_product_attention(q, k, v, mask)
        self.a_ij = weights.reshape(t, N, h, T)
        return self.Wo(mixed.reshape(t, N, h * d_k))
        ### END SOLUTION

    @property
    def parameters(self):
        """The learnable tensors of this layer."""
        return (self.Wq, self.Wk, self.Wv) + self.Wo.parameters


# %%
attention = MultiheadAttention(dim=8, n_head=2)
x = np.random.default_rng(0).normal(size=(5, 3, 8)).astype(np.float32)  # t = T = 5, N = 3, d = 8
out = attention(x, x, x)
weights = np.asarray(attention.a_ij)
print("output", out.shape, out.dtype)  # (5, 3, 8) float32
print("weights", weights.shape)  # (5, 3, 2, 5)
print("each query's weights sum to one:", np.allclose(weights.sum(axis=-1), 1))

# %% course={"task": "multihead_attention"} nbgrader={"grade": true, "grade_id": "multihead_attention__shapes", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that the weights, the output and a_ij have the documented shapes and dtype, and the output on weights the test sets.
# MultiheadAttention builds on your scaled_dot_product_attention: first, is it right on a small masked case?
rng = np.random.default_rng(30)
small_q, small_k, small_v = (rng.normal(size=shape).astype(np.float32) for shape in [(2, 2, 4), (3, 2, 4), (3, 2, 2)])
small_mask = np.array([[[1, 1, 0], [1, 0, 1]], [[0, 1, 1], [1, 1, 1]]], dtype=bool)  # (t, N, T)
small_scores = np.where(small_mask, np.einsum("tNk,TNk->tNT", small_q, small_k) / 2, -np.inf)
small_weights = np.exp(small_scores - small_scores.max(axis=-1, keepdims=True))
small_weights = small_weights / small_weights.sum(axis=-1, keepdims=True)
small_out = np.einsum("tNT,TNk->tNk", small_weights, small_v)
own_out, own_weights = scaled_dot_product_attention(
    mg.tensor(small_q), mg.tensor(small_k), mg.tensor(small_v), small_mask.copy()
)
assert np.allclose(np.asarray(own_weights), small_weights, atol=1e-5) and np.allclose(np.asarray(own_out), small_out, atol=1e-5), (
    "MultiheadAttention calls your scaled_dot_product_attention, which fails on a small masked case: "
    "fix scaled_dot_product_attention (Part C's first task) first"
)
mha = MultiheadAttention(dim=12, n_head=3)
weights = {"Wq": mha.Wq, "Wk": mha.Wk, "Wv": mha.Wv}
wo_weight, wo_bias = mha.Wo.weight, mha.Wo.bias
params = mha.parameters
for name, W in weights.items():
    assert W.shape == (3, 12, 4), f"{name} has shape {W.shape}, expected (h, d, d // h) = (3, 12, 4)"
    assert W.dtype == np.float32, f"{name} has dtype {W.dtype}"
assert wo_weight.shape == (12, 12), "Wo should be a dense layer from h * d_k to d"
assert wo_bias is None, "Wo should have no bias"
assert len(params) == 4, f"{len(params)} parameters, expected Wq, Wk, Wv and Wo's weight"
rng = np.random.default_rng(1)
Q = rng.normal(size=(2, 5, 12)).astype(np.float32)
KV = rng.normal(size=(7, 5, 12)).astype(np.float32)
out = mha(Q, KV, KV)
a = np.asarray(mha.a_ij)
assert out.shape == (2, 5, 12), f"output shape {out.shape}, expected (t, N, d) = (2, 5, 12)"
assert out.dtype == np.float32, f"output dtype {out.dtype}: a float64 constant crept in"
assert a.shape == (2, 5, 3, 7), f"a_ij has shape {a.shape}, expected (t, N, h, T) = (2, 5, 3, 7)"
assert np.allclose(a.sum(axis=-1), 1, atol=1e-5), (
    "a_ij: each query's weights over the T keys should sum to one: take the softmax over the keys, the last axis"
)
# the same call on weights the test sets through Wq, Wk, Wv and Wo.weight: its output is known
Wq, Wk, Wv = (0.5 * rng.normal(size=(3, 3, 12, 4))).astype(np.float32)
Wo = (0.3 * rng.normal(size=(12, 12))).astype(np.float32)
mha.Wq, mha.Wk, mha.Wv, mha.Wo.weight = mg.tensor(Wq), mg.tensor(Wk), mg.tensor(Wv), mg.tensor(Wo)
out = mha(Q.copy(), KV.copy(), KV.copy())
want = np.array([
    [0.5731, 0.8164, 0.3847, -2.9841, 0.4204, 2.7959, -0.0536, 3.0823, -2.4157, 1.1501, 0.6466, -1.5549],
    [1.2341, -0.3351, -0.1479, -2.3972, 0.1639, 1.0612, 2.8159, 0.6113, -1.3422, 2.5572, -0.0381, -1.0773],
])  # sequence 0, both queries
# what three common slips give instead (a correct layer gives none of them)
unscaled = np.array([
    [1.0244, 0.9989, 0.3643, -3.3748, 0.1508, 3.1309, 0.0021, 3.4012, -2.4122, 1.7532, 0.5302, -1.6581],
    [2.0779, -0.6299, 0.0187, -2.89, 0.3859, 0.53, 3.3175, 0.6736, -1.5674, 3.0873, -0.2364, -1.7212],
])
scaled_by_d = np.array([
    [0.1282, 0.6236, 0.4539, -2.4171, 0.4565, 2.514, 0.0121, 2.5752, -2.1563, 0.694, 0.6699, -1.1935],
    [0.467, -0.061, -0.2486, -1.8981, -0.0039, 1.4868, 2.2246, 0.5491, -1.1342, 1.9249, 0.1483, -0.5921],
])
interleaved = np.array([
    [0.0892, 3.1451, 0.3693, -1.14, -3.141, 0.3552, -5.4435, 0.0688, 0.6942, 1.4413, 0.723, -1.0179],
    [0.2307, 0.7711, 1.3707, -0.1724, -1.3953, 0.186, -1.1018, -0.4553, -0.2452, -0.416, 0.6975, -1.6497],
])
assert out.shape == (2, 5, 12), f"output shape {out.shape}, expected (t, N, d) = (2, 5, 12)"
assert not np.allclose(out.data[:, 0], unscaled, atol=2e-4), "the scores are not divided by sqrt(d_k): scale them"
assert not np.allclose(out.data[:, 0], scaled_by_d, atol=2e-4), (
    "the scores are divided by sqrt(12) = sqrt(d), the root of the model width; divide by sqrt(d_k) = sqrt(4), "
    "the width of one head"
)
assert not np.allclose(out.data[:, 0], interleaved, atol=2e-4), (
    "the heads are joined in the wrong order: reshape (t, N, h, d_k) to (t, N, h * d_k) with head 0's d_k numbers first"
)
assert np.allclose(out.data[:, 0], want, atol=2e-4), (
    f"on the test's weights, sequence 0's output is\n{np.round(out.data[:, 0], 3)}\nexpected\n{np.round(want, 3)}"
)
out.sum().backward()  # training needs a gradient for every weight
wq_grad, wk_grad, wv_grad, wo_grad = mha.Wq.grad, mha.Wk.grad, mha.Wv.grad, mha.Wo.weight.grad
assert wq_grad is not None and np.abs(wq_grad).sum() > 0, (
    "Wq got no gradient from out.sum().backward(): compute the output from Wq with MyGrad operations "
    "(no .data, np.asarray or astype on the way)"
)
assert wk_grad is not None and np.abs(wk_grad).sum() > 0, (
    "Wk got no gradient from out.sum().backward(): compute the output from Wk with MyGrad operations "
    "(no .data, np.asarray or astype on the way)"
)
assert wv_grad is not None and np.abs(wv_grad).sum() > 0, (
    "Wv got no gradient from out.sum().backward(): compute the output from Wv with MyGrad operations "
    "(no .data, np.asarray or astype on the way)"
)
assert wo_grad is not None and np.abs(wo_grad).sum() > 0, (
    "Wo.weight got no gradient from out.sum().backward(): compute the output from Wo.weight with MyGrad operations "
    "(no .data, np.asarray or astype on the way)"
)
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng


def reference(Q, K, V, Wq, Wk, Wv, Wo):
    t, N, _ = Q.shape
    h, _, dk = Wq.shape
    out = np.zeros((t, N, h * dk))
    for n in range(N):
        for j in range(h):
            s = (Q[:, n] @ Wq[j]) @ (K[:, n] @ Wk[j]).T / np.sqrt(dk)
            w = np.exp(s - s.max(axis=1, keepdims=True))
            w = w / w.sum(axis=1, keepdims=True)
            out[:, n, j * dk:(j + 1) * dk] = w @ (V[:, n] @ Wv[j])
    return out @ Wo


rng = hidden_rng("multihead_attention__shapes")  # this submission's own inputs
h, d_k = int(rng.integers(2, 5)), int(rng.integers(2, 4))  # d_k > 1: the order of the heads shows
d = h * d_k + int(rng.integers(1, h))  # h does not divide d
t, N = int(rng.integers(2, 6)), int(rng.integers(1, 4))
x7 = rng.normal(size=(t, N, d)).astype(np.float32)
Wq7, Wk7, Wv7 = (0.5 * rng.normal(size=(3, h, d, d_k))).astype(np.float32)
Wo7 = (0.3 * rng.normal(size=(h * d_k, d))).astype(np.float32)
want7 = reference(x7, x7, x7, Wq7, Wk7, Wv7, Wo7)
wq_wanted, wo_wanted, out_wanted, a_wanted = (h, d, d_k), (h * d_k, d), (t, N, d), (t, N, h, t)
mha7 = MultiheadAttention(dim=d, n_head=h)
wq7_shape, wo7_shape = mha7.Wq.shape, mha7.Wo.weight.shape
assert wq7_shape == wq_wanted and wo7_shape == wo_wanted, "when h does not divide d, d_k = d // h and Wo is (h d_k, d)"
out7 = mha7(x7.copy(), x7.copy(), x7.copy())
a7 = np.asarray(mha7.a_ij)
assert out7.shape == out_wanted, "when h does not divide d, the output should still be (t, N, d)"
assert a7.shape == a_wanted, "when h does not divide d, a_ij should still be (t, N, h, T)"
mha7.Wq, mha7.Wk, mha7.Wv = mg.tensor(Wq7), mg.tensor(Wk7), mg.tensor(Wv7)
mha7.Wo.weight = mg.tensor(Wo7)
out7 = mha7(x7.copy(), x7.copy(), x7.copy())
assert np.allclose(out7.data, want7, atol=2e-4), (
    "when h does not divide d, on weights the test sets: the output differs (d_k = d // h, the heads joined by Wo)"
)
### END HIDDEN TESTS

# %% course={"task": "multihead_attention"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "multihead_attention__by_hand", "locked": true, "points": 2, "schema_version": 3, "solution": false}
# Check that attention with identity projections matches a computation by hand.
# d = 4 and h = 2: head 0 sees dimensions 0-1 and head 1 dimensions 2-3; W_o is the identity.
# MultiheadAttention builds on your scaled_dot_product_attention: first, is it right on a small masked case?
rng = np.random.default_rng(30)
small_q, small_k, small_v = (rng.normal(size=shape).astype(np.float32) for shape in [(2, 2, 4), (3, 2, 4), (3, 2, 2)])
small_mask = np.array([[[1, 1, 0], [1, 0, 1]], [[0, 1, 1], [1, 1, 1]]], dtype=bool)  # (t, N, T)
small_scores = np.where(small_mask, np.einsum("tNk,TNk->tNT", small_q, small_k) / 2, -np.inf)
small_weights = np.exp(small_scores - small_scores.max(axis=-1, keepdims=True))
small_weights = small_weights / small_weights.sum(axis=-1, keepdims=True)
small_out = np.einsum("tNT,TNk->tNk", small_weights, small_v)
own_out, own_weights = scaled_dot_product_attention(
    mg.tensor(small_q), mg.tensor(small_k), mg.tensor(small_v), small_mask.copy()
)
assert np.allclose(np.asarray(own_weights), small_weights, atol=1e-5) and np.allclose(np.asarray(own_out), small_out, atol=1e-5), (
    "MultiheadAttention calls your scaled_dot_product_attention, which fails on a small masked case: "
    "fix scaled_dot_product_attention (Part C's first task) first"
)
mha = MultiheadAttention(dim=4, n_head=2)
eye4 = np.eye(4, dtype=np.float32)
halves = np.stack([eye4[:, :2], eye4[:, 2:]])  # shape (h, d, d_k) = (2, 4, 2)
mha.Wq, mha.Wk, mha.Wv = mg.tensor(halves), mg.tensor(halves), mg.tensor(halves)
mha.Wo.weight = mg.tensor(eye4)
q = np.array([[[1, 0, 0, 2]]], dtype=np.float32)  # t = 1, N = 1
kv = np.array([[[1, 0, 0, 0]], [[0, 1, 0, 1]], [[2, 0, 1, 0]]], dtype=np.float32)  # T = 3
# head 0: query (1, 0), keys (1, 0), (0, 1), (2, 0) -> scores (1, 0, 2) / sqrt(2)
# head 1: query (0, 2), keys (0, 0), (0, 1), (1, 0) -> scores (0, 2, 0) / sqrt(2)
w0 = np.exp(np.array([1, 0, 2]) / np.sqrt(2))
w0 = w0 / w0.sum()
w1 = np.exp(np.array([0, 2, 0]) / np.sqrt(2))
w1 = w1 / w1.sum()
head0 = w0 @ kv[:, 0, :2]  # the weighted values of head 0
head1 = w1 @ kv[:, 0, 2:]
out = mha(q, kv, kv)
a = np.asarray(mha.a_ij)
assert out.shape == (1, 1, 4), f"output shape {out.shape}, expected (t, N, d) = (1, 1, 4)"
assert a.shape == (1, 1, 2, 3), f"a_ij has shape {a.shape}, expected (t, N, h, T) = (1, 1, 2, 3)"
too_flat = np.exp(np.array([1, 0, 2]) / 2)  # head 0's scores divided by 2 = sqrt(d) instead of sqrt(d_k)
assert not np.allclose(a[0, 0, 0], too_flat / too_flat.sum(), atol=1e-6), (
    "head 0's weights are those of scores divided by 2 = sqrt(d), the root of the model width, d = 4; "
    "divide by sqrt(d_k) = sqrt(2) instead, where d_k = d // h = 2 is the width of one head"
)
assert np.allclose(a[0, 0, 0], w0, atol=1e-6), f"head 0 weights {a[0, 0, 0]}, expected {w0}"
assert np.allclose(a[0, 0, 1], w1, atol=1e-6), f"head 1 weights {a[0, 0, 1]}, expected {w1}"
assert np.allclose(out.data[0, 0], np.concatenate([head0, head1]), atol=1e-6), (
    "the heads are joined in the wrong order: reshape (t, N, h, d_k) to (t, N, h * d_k) with head 0's d_k numbers first"
)
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng


def reference(Q, K, V, Wq, Wk, Wv, Wo):
    t, N, _ = Q.shape
    h, _, dk = Wq.shape
    out = np.zeros((t, N, h * dk))
    for n in range(N):
        for j in range(h):
            s = (Q[:, n] @ Wq[j]) @ (K[:, n] @ Wk[j]).T / np.sqrt(dk)
            w = np.exp(s - s.max(axis=1, keepdims=True))
            w = w / w.sum(axis=1, keepdims=True)
            out[:, n, j * dk:(j + 1) * dk] = w @ (V[:, n] @ Wv[j])
    return out @ Wo


rng = hidden_rng("multihead_attention__by_hand")  # this submission's own inputs
h, d_k = int(rng.integers(2, 5)), int(rng.integers(2, 4))  # d_k > 1: the order of the heads shows
d = h * d_k + int(rng.integers(0, h))
t, T, N = int(rng.integers(1, 6)), int(rng.integers(2, 7)), int(rng.integers(1, 4))
Q = rng.normal(size=(t, N, d)).astype(np.float32)
K = rng.normal(size=(T, N, d)).astype(np.float32)
V = rng.normal(size=(T, N, d)).astype(np.float32)
Wq, Wk, Wv = (0.7 * rng.normal(size=(3, h, d, d_k))).astype(np.float32)  # each (h, d, d_k)
Wo = (0.7 * rng.normal(size=(h * d_k, d))).astype(np.float32)
want = reference(Q, K, V, Wq, Wk, Wv, Wo)
out_shape = (t, N, d)
mha = MultiheadAttention(dim=d, n_head=h)
mha.Wq, mha.Wk, mha.Wv, mha.Wo.weight = mg.tensor(Wq), mg.tensor(Wk), mg.tensor(Wv), mg.tensor(Wo)
got = mha(Q.copy(), K.copy(), V.copy()).data
assert np.shape(got) == out_shape, f"output of shape {np.shape(got)}, expected (t, N, d)"
assert np.allclose(got, want, atol=1e-4), "the output differs from a loop over sequences and heads"
### END HIDDEN TESTS

# %% course={"task": "multihead_attention"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "multihead_attention__mask", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that masked pairs get exactly zero weight, sequence by sequence, on weights the test sets.
# MultiheadAttention builds on your scaled_dot_product_attention: first, is it right on a small masked case?
rng = np.random.default_rng(30)
small_q, small_k, small_v = (rng.normal(size=shape).astype(np.float32) for shape in [(2, 2, 4), (3, 2, 4), (3, 2, 2)])
small_mask = np.array([[[1, 1, 0], [1, 0, 1]], [[0, 1, 1], [1, 1, 1]]], dtype=bool)  # (t, N, T)
small_scores = np.where(small_mask, np.einsum("tNk,TNk->tNT", small_q, small_k) / 2, -np.inf)
small_weights = np.exp(small_scores - small_scores.max(axis=-1, keepdims=True))
small_weights = small_weights / small_weights.sum(axis=-1, keepdims=True)
small_out = np.einsum("tNT,TNk->tNk", small_weights, small_v)
own_out, own_weights = scaled_dot_product_attention(
    mg.tensor(small_q), mg.tensor(small_k), mg.tensor(small_v), small_mask.copy()
)
assert np.allclose(np.asarray(own_weights), small_weights, atol=1e-5) and np.allclose(np.asarray(own_out), small_out, atol=1e-5), (
    "MultiheadAttention calls your scaled_dot_product_attention, which fails on a small masked case: "
    "fix scaled_dot_product_attention (Part C's first task) first"
)
rng = np.random.default_rng(2)
mha = MultiheadAttention(dim=6, n_head=3)
Wq, Wk, Wv = (0.6 * rng.normal(size=(3, 3, 6, 2))).astype(np.float32)  # each (h, d, d_k)
mha.Wq, mha.Wk, mha.Wv = mg.tensor(Wq), mg.tensor(Wk), mg.tensor(Wv)
mha.Wo.weight = mg.tensor((0.4 * rng.normal(size=(6, 6))).astype(np.float32))
x = rng.normal(size=(3, 2, 6)).astype(np.float32)  # t = T = 3, N = 2
mask = np.array([
    [[True, False, False], [True, True, True]],  # query 0: sequence 0 reads key 0 only, sequence 1 all keys
    [[True, True, False], [True, True, True]],
    [[False, True, True], [True, True, False]],
])  # shape (t, N, T) = (3, 2, 3)
hidden = ~mask  # the pairs the mask hides
out = mha(x.copy(), x.copy(), x.copy(), mask=mask.copy())
a = np.asarray(mha.a_ij)
assert a.shape == (3, 2, 3, 3), f"a_ij has shape {a.shape}, expected (t, N, h, T) = (3, 2, 3, 3)"
by_pair = a.transpose(0, 1, 3, 2)  # (t, N, T, h): pick pairs with the (t, N, T) mask
assert not np.array_equal(a[:, 1, 0] == 0, hidden[:, 0]), (
    "a_ij: sequence 1's weights follow sequence 0's mask: sequence n has its own mask[:, n, :], the same in every head"
)
tiled = np.tile(hidden, (1, 3, 1)).reshape(3, 2, 3, 3)  # (t, N, h, T): the heads folded with np.tile's masks
assert not np.array_equal(a == 0, tiled), (
    "a_ij: the heads of one sequence follow different masks: every head of sequence n uses mask[:, n, :]; "
    "fold the mask as the heads are folded, sequence n's mask h times in a row"
)
assert np.all(by_pair[hidden] == 0), (
    "a_ij: a pair the mask hides got a non-zero weight: mask[i, n, j] is about query i (axis 0) and key j (the last axis)"
)
assert np.all(by_pair[~hidden] > 0), (
    "a_ij: a pair the mask allows got zero weight: sequence n has its own mask[:, n, :], the same in every head"
)
assert np.allclose(a.sum(axis=-1), 1, atol=1e-5), "a_ij: rows should sum to one: mask the scores before the softmax"
want = np.array([[0.0, 0.2118, 0.7882], [0.9995, 0.0005, 0.0]])  # query 2's weights in head 0, both sequences
assert np.allclose(a[2, :, 0], want, atol=2e-4), (
    f"a_ij of query 2 in head 0 is\n{np.round(a[2, :, 0], 3)}\nexpected\n{np.round(want, 3)}: "
    "scores of the allowed keys, divided by sqrt(d_k), through a softmax over the keys"
)
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng


def reference(Q, K, V, Wq, Wk, Wv, Wo, mask):
    t, N, _ = Q.shape
    h, _, dk = Wq.shape
    out = np.zeros((t, N, h * dk))
    for n in range(N):
        for j in range(h):
            s = (Q[:, n] @ Wq[j]) @ (K[:, n] @ Wk[j]).T / np.sqrt(dk)
            s = np.where(mask[:, n], s, -np.inf)
            w = np.exp(s - s.max(axis=1, keepdims=True))
            w = w / w.sum(axis=1, keepdims=True)
            out[:, n, j * dk:(j + 1) * dk] = w @ (V[:, n] @ Wv[j])
    return out @ Wo


rng = hidden_rng("multihead_attention__mask")  # this submission's own inputs, none of the visible ones
h, d_k = int(rng.integers(2, 5)), int(rng.integers(2, 4))
d = h * d_k + int(rng.integers(0, h))
t, N = int(rng.integers(2, 6)), int(rng.integers(2, 5))
Wq, Wk, Wv = (0.6 * rng.normal(size=(3, h, d, d_k))).astype(np.float32)  # each (h, d, d_k)
Wo = (0.4 * rng.normal(size=(h * d_k, d))).astype(np.float32)
x = rng.normal(size=(t, N, d)).astype(np.float32)  # t = T
# a mask of its own for each sequence: query 0 of sequence 0 reads key 0 alone, sequence `open_n` reads every key,
# the others a random choice of keys that always holds one
open_n = int(rng.integers(1, N))
mask = rng.random((t, N, t)) < 0.6
mask[np.arange(t)[:, None], np.arange(N), rng.integers(0, t, size=(t, N))] = True
mask[0, 0] = np.arange(t) == 0
mask[:, open_n] = True
want_out = reference(x, x, x, Wq, Wk, Wv, Wo, mask)
want_full = reference(x, x, x, Wq, Wk, Wv, Wo, np.ones((t, N, t), dtype=bool))
# and fewer queries than keys, a random mask that keeps a key in every row
t2, T = int(rng.integers(2, 6)), int(rng.integers(6, 9))
Q = rng.normal(size=(t2, N, d)).astype(np.float32)
K = rng.normal(size=(T, N, d)).astype(np.float32)
V = rng.normal(size=(T, N, d)).astype(np.float32)
Wq2, Wk2, Wv2 = (0.6 * rng.normal(size=(3, h, d, d_k))).astype(np.float32)
Wo2 = (0.4 * rng.normal(size=(h * d_k, d))).astype(np.float32)
rect_mask = rng.random((t2, N, T)) < 0.7
rect_mask[np.arange(t2)[:, None], np.arange(N), rng.integers(0, T, size=(t2, N))] = True
want_masked = reference(Q, K, V, Wq2, Wk2, Wv2, Wo2, rect_mask)
masked_shape = (t2, N, d)
out_shape, alone_shape = (t, N, d), (1, 1, d)
mha = MultiheadAttention(dim=d, n_head=h)
mha.Wq, mha.Wk, mha.Wv, mha.Wo.weight = mg.tensor(Wq), mg.tensor(Wk), mg.tensor(Wv), mg.tensor(Wo)
out = mha(x.copy(), x.copy(), x.copy(), mask=mask.copy())
assert out.shape == out_shape, f"output shape {out.shape}, expected (t, N, d)"
assert np.allclose(out.data, want_out, atol=2e-4), "with a mask, the output differs on the test's weights"
# a sequence whose mask allows everything gives the unmasked result; query 0 of sequence 0 reads key 0 alone
full = mha(x.copy(), x.copy(), x.copy()).data
alone = mha(x[:1, :1].copy(), x[:1, :1].copy(), x[:1, :1].copy()).data
assert full.shape == out_shape, f"without a mask: output shape {full.shape}, expected (t, N, d)"
assert alone.shape == alone_shape, f"one query on one key: output shape {alone.shape}, expected (t, N, d)"
assert np.allclose(full, want_full, atol=2e-4), "without a mask, the output differs on the test's weights"
assert np.allclose(out.data[:, open_n], want_full[:, open_n], atol=2e-4), "an all-True row of the mask should change nothing"
assert np.allclose(alone[0, 0], want_out[0, 0], atol=2e-4), "a query that reads one key should return that key's value"
# fewer queries than keys, on other weights
mha = MultiheadAttention(dim=d, n_head=h)
mha.Wq, mha.Wk, mha.Wv, mha.Wo.weight = mg.tensor(Wq2), mg.tensor(Wk2), mg.tensor(Wv2), mg.tensor(Wo2)
masked = mha(Q.copy(), K.copy(), V.copy(), mask=rect_mask.copy()).data
assert masked.shape == masked_shape, f"fewer queries than keys: output shape {masked.shape}, expected (t, N, d)"
assert np.allclose(masked, want_masked, atol=1e-3), "fewer queries than keys, with a mask: the output differs"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "masks_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part D: padding masks and the causal mask (3 points)
#
# Three attentions need masks of shape (t, N, T):
#
# - **Encoder self-attention** and **encoder–decoder attention** read the source as keys. Every query may read every real key, $j < \text{lengths}[n]$, and no padded one: `padding_mask(lengths, t, T)` is
# $$\text{mask}[i, n, j] = \big(j < \text{lengths}[n]\big).$$
# The mask is about the *keys* (the last axis); a padded query still gets a row of weights, but nobody reads its output.
# - **Decoder self-attention** reads the decoder input, fed in whole while training. Position $i$ must not read later positions, which hold the symbols it is to predict, nor padding: `causal_mask(lengths, t)` is
# $$\text{mask}[i, n, j] = \big(j \le i\big) \text{ and } \big(j < \text{lengths}[n]\big).$$

# %% [markdown] nbgrader={"grade": false, "grade_id": "masks_picture_text", "locked": true, "schema_version": 3, "solution": false}
# ![Three 6 by 6 grids, query down and key across, for a sequence of 3 real positions: the padding mask, the causal pattern, and their conjunction, the causal mask](figures/masks.svg)
#
# *Figure: one sequence with $\text{lengths}[n] = 3$, padded to 6: the padding mask ($j < 3$) & the causal pattern ($j \le i$) = `causal_mask`, the second formula above.*
#
# The diagonal stays open: position $i$ reads its own input, the symbol *before* the one it predicts, so every row keeps a key. A real query never reaches padding through $j \le i$; the padding part keeps the padded queries off it too.

# %% [markdown] nbgrader={"grade": false, "grade_id": "masks_task_text", "locked": true, "schema_version": 3, "solution": false}
# `np.tril(np.ones((t, t), dtype=bool))` is the causal (t, t) pattern; comparing `np.arange(T)` with the lengths, with broadcasting, gives the real keys of every sequence. Write `padding_mask`, then `causal_mask` (it may call `padding_mask`).

# %% nbgrader={"grade": false, "grade_id": "masks", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
def padding_mask(lengths, t, T):
    """Let every query read the real keys of its own sequence, and no padding.

    Parameters
    ----------
    lengths : array_like of int, shape=(N,)
        The number of real (unpadded) positions of each sequence of the keys.
    t : int
        The number of queries.
    T : int
        The number of key positions, padding included (T >= max(lengths)).

    Returns
    -------
    numpy.ndarray, shape=(t, N, T), dtype=bool
        ``mask[i, n, j]`` is True exactly when ``j < lengths[n]``.
    """
    ### BEGIN SOLUTION
    real = np.arange(T)[None, :] < np.asarray(lengths)[:, None]  # (N, T): the real keys
    return np.broadcast_to(real, (t, *real.shape)).copy()
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "causal_mask", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
def causal_mask(lengths, t):
    """The decoder's self-attention mask: earlier or same positions, and no padding.

    Parameters
    ----------
    lengths : array_like of int, shape=(N,)
        The number of real positions of each decoder input.
    t : int
        The decoder input's length, padding included.

    Returns
    -------
    numpy.ndarray, shape=(t, N, t), dtype=bool
        ``mask[i, n, j]`` is True exactly when ``j <= i`` and ``j < lengths[n]``.
    """
    ### BEGIN SOLUTION
    earlier = np.tril(np.ones((t, t), dtype=bool))  # (t, t): key j at or before query i
    return earlier[:, None, :] & padding_mask(lengths, t, t)
    ### END SOLUTION


# %%
# a batch of two messages, "hello" and "hi", each with END: 6 and 3 real positions, padded to 6
lengths = [6, 3]  # a list, as callers often pass the lengths
try:
    pad, causal = padding_mask(lengths, 6, 6), causal_mask(lengths, 6)
except (TypeError, IndexError, AttributeError, ValueError) as err:  # a list has no .shape, no [:, None]
    print(f"warning: your masks fail on lengths given as a list ({type(err).__name__}: {err}); "
          "np.asarray(lengths) takes a list and an array alike")
else:
    show_masks([pad[:, 1], causal[:, 0], causal[:, 1]], ["padding_mask, 'hi'", "causal_mask, 'hello'", "causal_mask, 'hi'"])

# %% course={"task": "masks"} nbgrader={"grade": true, "grade_id": "masks__padding", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check padding_mask on a batch worked out by hand, with the lengths given as a list.
try:
    mask = padding_mask([2, 4, 1], 2, 5)  # N = 3 sequences of 2, 4 and 1 real keys; t = 2, T = 5
    list_error = None
except (TypeError, IndexError, AttributeError, ValueError) as err:  # a list has no .shape, no [:, None]
    mask, list_error = None, type(err).__name__
assert list_error is None, (
    f"padding_mask fails on lengths given as a list ({list_error}): callers pass lists too, and "
    "np.asarray(lengths) takes a list and an array alike"
)
assert mask.shape == (2, 3, 5), f"shape {mask.shape}, expected (t, N, T) = (2, 3, 5)"
assert mask.dtype == bool, f"dtype {mask.dtype}, expected bool"
assert np.array_equal(mask[0] != mask[1], np.zeros((3, 5), dtype=bool)), (
    "queries 0 and 1 of the same sequences got different masks: padding hides keys, "
    "so mask[i, n, j] depends on the key j (the last axis) and never on the query i"
)
row = np.array([[1, 1, 0, 0, 0], [1, 1, 1, 1, 0], [1, 0, 0, 0, 0]], dtype=bool)  # (N, T)
one_more = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 1, 0, 0, 0]], dtype=bool)  # key lengths[n] open too
assert not np.array_equal(mask[0], one_more), (
    "each sequence reads one padded key, key lengths[n]: the real keys are j < lengths[n], counted from 0"
)
assert not np.array_equal(mask[0, 2], [1, 1, 1, 1, 0]), (
    "sequence 2, of 1 real key, reads 4: every sequence got the longest length; use each sequence's own lengths[n]"
)
assert np.array_equal(mask[0], row), f"mask[0] is\n{mask[0].astype(int)}\nexpected\n{row.astype(int)}"
assert np.array_equal(mask[1], row), "every query of a sequence reads the same real keys"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("masks__padding")  # this submission's own inputs
t, N, T = int(rng.integers(1, 7)), int(rng.integers(2, 8)), int(rng.integers(4, 13))
lengths = rng.integers(1, T + 1, size=N)
L, t_one = int(rng.integers(1, 9)), int(rng.integers(1, 4))
want = np.broadcast_to(np.arange(T)[None, None, :] < lengths[None, :, None], (t, N, T))
want_open, mask_shape = np.ones((t_one, 1, L), dtype=bool), (t, N, T)
mask = padding_mask(lengths.copy(), t, T)
no_padding = padding_mask(np.array([L]), t_one, L)
assert mask.shape == mask_shape, f"padding_mask has shape {mask.shape}, expected (t, N, T): queries, batch, keys"
assert np.array_equal(mask, want), "padding_mask is wrong for random lengths"
assert np.array_equal(no_padding, want_open), "no padding: every key is real"
### END HIDDEN TESTS

# %% course={"task": "causal_mask"} nbgrader={"grade": true, "grade_id": "masks__causal", "locked": true, "points": 2, "schema_version": 3, "solution": false}
# Check causal_mask by hand: no later position, no padding, and every row keeps at least one key.
errors = []  # what causal_mask, then padding_mask, raise on these lengths, given as a list
for make in (lambda: causal_mask([4, 2], 4), lambda: padding_mask([4, 2], 4, 4)):
    try:
        errors.append((make(), None))
    except (TypeError, IndexError, AttributeError, ValueError) as err:  # a list has no .shape, no [:, None]
        errors.append((None, type(err).__name__))
(mask, causal_error), (padded, padding_error) = errors
assert causal_error is None or padding_error is None, (
    f"causal_mask fails on lengths given as a list ({causal_error}), and so does your padding_mask, which it "
    "builds on: fix padding_mask first"
)
assert causal_error is None, (
    f"causal_mask fails on lengths given as a list ({causal_error}): np.asarray(lengths) takes a list and an array alike"
)
assert mask.shape == (4, 2, 4), f"shape {mask.shape}, expected (t, N, t) = (4, 2, 4)"
assert mask.dtype == bool, f"dtype {mask.dtype}, expected bool"
full = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]], dtype=bool)
short = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 0, 0]], dtype=bool)
assert not np.array_equal(mask[:, 0], full.T), (
    "sequence 0: each position reads the later positions and not the earlier ones: key j is allowed when j <= i (np.tril)"
)
assert np.array_equal(np.diagonal(mask[:, 0]), [True] * 4), (
    "sequence 0: a position cannot read its own input: the diagonal stays open, key j is allowed when j <= i"
)
assert np.array_equal(np.triu(mask[:, 0], k=1), np.zeros((4, 4), dtype=bool)), (
    "sequence 0: a position reads a later position: key j is allowed only when j <= i"
)
assert np.array_equal(mask[:, 1, 2:], np.zeros((4, 2), dtype=bool)), (
    "sequence 1 (2 real positions) reads its padding, keys 2 and 3: combine the causal pattern with padding_mask"
)
assert np.array_equal(mask[:, 0], full), f"sequence 0 (no padding):\n{mask[:, 0].astype(int)}\nexpected\n{full.astype(int)}"
assert np.array_equal(mask[:, 1], short), f"sequence 1 (2 real):\n{mask[:, 1].astype(int)}\nexpected\n{short.astype(int)}"
assert np.all(mask.sum(axis=-1) >= 1), "every query must keep at least one key, or its softmax row is meaningless"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("masks__causal")  # this submission's own inputs
t, N = int(rng.integers(3, 12)), int(rng.integers(2, 8))
lengths = rng.integers(1, t + 1, size=N)
i, j = np.arange(t)[:, None, None], np.arange(t)[None, None, :]
want = (j <= i) & (j < lengths[None, :, None])
mask_shape = (t, N, t)
mask = causal_mask(lengths.copy(), t)
assert mask.shape == mask_shape, f"causal_mask has shape {mask.shape}, expected (t, N, t)"
assert np.array_equal(mask, want), "causal_mask is wrong for random lengths"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "add_and_norm_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part E: residual connection and layer normalisation (3 points)
#
# Each sub-layer (attention or feed-forward) is wrapped the same way. Its output $x_\text{new}$ is added to its input $x_\text{old}$, a *residual connection*: the sub-layer only learns a change, and through the sum the gradient reaches the input without passing through the sub-layer. The sum is normalised over its $d$ features:
#
# $$x = x_\text{old} + x_\text{new}, \qquad \mu = \frac{1}{d}\sum_{j=1}^{d} x_j, \qquad \sigma^2 = \frac{1}{d}\sum_{j=1}^{d} (x_j - \mu)^2, \qquad \text{out} = g \odot \frac{x - \mu}{\sqrt{\sigma^2 + \varepsilon}} + b .$$
#
# Each position is normalised on its own, over the last axis. The gain $g$ and shift $b$ (shape (d,), float32) start at ones and zeros and are learned; $\varepsilon = 10^{-5}$ (`EPS`) goes *under* the root, so a constant vector ($\sigma^2 = 0$) comes out as $b$. By hand: $x = (2, 2, 2, 6)$ has μ = 3 and σ² = 3, so with $g = 1$, $b = 0$ the output is $(-1, -1, -1, 3) / \sqrt{3} \approx (-0.577, -0.577, -0.577, 1.732)$.
#
# Write `ResidualConnectionAndLayerNorm`, with attributes `gain` and `bias`.

# %% nbgrader={"grade": false, "grade_id": "add_and_norm", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
EPS = np.float32(1e-5)


class ResidualConnectionAndLayerNorm:
    """Add a sub-layer's output to its input, then normalise over the last axis.

    Attributes
    ----------
    gain, bias : mygrad.Tensor, shape=(d,), dtype=float32
        The learned scale (starts at 1) and shift (starts at 0).
    """

    def __init__(self, dim):
        """
        Parameters
        ----------
        dim : int
            The model width d.
        """
        ### BEGIN SOLUTION
        self.gain = mg.ones(dim, dtype=np.float32)
        self.bias = mg.zeros(dim, dtype=np.float32)
        ### END SOLUTION

    def __call__(self, x_old, x_new):
        """
        Parameters
        ----------
        x_old : array_like, shape=(..., d)
            The input of the sub-layer.
        x_new : mygrad.Tensor, shape=(..., d)
            The output of the sub-layer.

        Returns
        -------
        mygrad.Tensor, shape=(..., d)
        """
        ### BEGIN SOLUTION
        x = x_old + x_new
        # Each mean over the last axis as a product with a column of 1/d: the same numbers, but NumPy's mean
        # over rows of only d = 29 numbers is several times slower than a matrix product.
        average = np.full((x.shape[-1], 1), 1 / x.shape[-1], dtype=np.float32)  # (d, 1)
        centred = x - mg.matmul(x, average)
        variance = mg.matmul(centred * centred, average)  # (..., 1)
        return self.gain * centred / mg.sqrt(variance + EPS) + self.bias
        ### END SOLUTION

    @property
    def parameters(self):
        """The learnable tensors of this layer."""
        return (self.gain, self.bias)


# %%
# a batch of two vectors of d = 4: each is normalised on its own, over its last axis
norm = ResidualConnectionAndLayerNorm(4)
x_old = np.array([[1, 2, 3, 4], [0, 0, 5, 5]], dtype=np.float32)
x_new = mg.tensor(np.array([[1, 0, -1, 2], [1, 1, -1, -1]], dtype=np.float32))
try:
    out = norm(x_old, x_new)
except ValueError as err:  # a mean of shape (2,) does not line up with x of shape (2, 4)
    print(f"warning: your layer norm fails on a (2, 4) batch ({err}): keep the last axis in the mean and the "
          "variance (keepdims=True), so that they line up with x")
else:
    print(out)  # about [[-0.577 -0.577 -0.577  1.732] [-1 -1  1  1]]
    if out.shape != (2, 4) or not np.allclose(out.data.std(axis=-1), 1, atol=1e-3):
        print("warning: each row should come out with mean 0 and standard deviation 1 over its d features")

# %% course={"task": "add_and_norm"} nbgrader={"grade": true, "grade_id": "add_and_norm__by_hand", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that the layer adds its two inputs and normalises the sum, as worked out by hand.
norm = ResidualConnectionAndLayerNorm(4)
gain, bias = norm.gain, norm.bias
assert gain.shape == (4,) and bias.shape == (4,), "gain and bias should have shape (d,)"
x_old = np.array([[1, 2, 3, 4]], dtype=np.float32)
x_new = mg.tensor(np.array([[1, 0, -1, 2]], dtype=np.float32))
out = norm(x_old, x_new)
assert out.shape == (1, 4), f"output shape {out.shape}, expected the inputs' shape (1, 4)"
assert out.dtype == np.float32, f"output dtype {out.dtype}: use float32 constants"
assert not np.allclose(out.data, [[0.4472, -0.4472, -1.3416, 1.3416]], atol=1e-3), (
    "the output is x_new normalised alone: add the residual first, x = x_old + x_new"
)
assert not np.allclose(out.data, 0, atol=1e-4), (
    "every entry is 0: take the mean and variance of each vector over its d features, the last axis (axis=-1)"
)
assert not np.allclose(out.data, np.array([[-1, -1, -1, 3]]) / 3, atol=1e-3), (
    "the result is divided by the variance: divide by the standard deviation, sqrt(variance + epsilon)"
)
assert np.allclose(out.data, np.array([[-1, -1, -1, 3]]) / np.sqrt(3), atol=1e-4), (
    f"the output is {np.round(out.data, 3)}, expected (-1, -1, -1, 3) / sqrt(3) as worked out above"
)
out.sum().backward()  # training needs a gradient for the gain and the bias
gain_grad, bias_grad = norm.gain.grad, norm.bias.grad
assert gain_grad is not None and np.abs(gain_grad).sum() > 0, (
    "gain got no gradient from out.sum().backward(): compute the output from gain with MyGrad operations (no .data)"
)
assert bias_grad is not None and np.allclose(bias_grad, 1), (
    "bias got no gradient of 1 from out.sum().backward(): add bias with MyGrad operations (no .data)"
)
rows = np.array([[1, 2, 3, 4], [0, 0, 5, 5]], dtype=np.float32)  # a batch of two vectors
try:
    batch = ResidualConnectionAndLayerNorm(4)(rows.copy(), mg.zeros((2, 4), dtype=np.float32)).data
    batch_error = None
except (ValueError, TypeError) as err:  # a mean of shape (2,) does not line up with x of shape (2, 4)
    batch, batch_error = None, type(err).__name__
assert batch_error is None, (
    f"a batch of two vectors raised a {batch_error}: keep the last axis in the mean and the variance "
    "(keepdims=True), so that they line up with x"
)
assert np.allclose(batch, [[-1.3416, -0.4472, 0.4472, 1.3416], [-1, -1, 1, 1]], atol=1e-3), (
    f"in a batch, each vector is normalised on its own, over its last axis; got\n{np.round(batch, 3)}"
)
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("add_and_norm__by_hand")  # this submission's own inputs
d, N = int(rng.integers(6, 12)), int(rng.integers(2, 6))  # N < d: a mean without its last axis shows
x_old = rng.normal(size=(N, d)).astype(np.float32)
x_new = rng.normal(size=(N, d)).astype(np.float32)
gain = rng.uniform(0.5, 3, size=d).astype(np.float32)
bias = rng.normal(size=d).astype(np.float32)
total = x_old.astype(np.float64) + x_new
want = (total - total.mean(axis=-1, keepdims=True)) / np.sqrt(total.var(axis=-1, keepdims=True) + 1e-5) * gain + bias
out_shape = (N, d)
norm = ResidualConnectionAndLayerNorm(d)
norm.gain = mg.tensor(gain)
norm.bias = mg.tensor(bias)
scaled = norm(x_old.copy(), mg.tensor(x_new)).data
assert scaled.shape == out_shape, f"with a gain and a bias: output shape {scaled.shape}, expected the input's shape"
params = norm.parameters
assert np.allclose(scaled, want, atol=1e-4), "the gain should scale and the bias shift the result"
assert len(params) == 2, "parameters should be (gain, bias)"
### END HIDDEN TESTS

# %% course={"task": "add_and_norm"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "add_and_norm__statistics", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that every position of every sequence is normalised on its own, over the last axis.
rng = np.random.default_rng(3)
x_old = rng.normal(2, 5, size=(6, 3, 10)).astype(np.float32)
x_new = rng.normal(size=(6, 3, 10)).astype(np.float32)
out = ResidualConnectionAndLayerNorm(10)(x_old.copy(), mg.tensor(x_new))
assert out.shape == (6, 3, 10) and out.dtype == np.float32, f"output {out.shape} {out.dtype}, expected (6, 3, 10) float32"
assert np.allclose(out.data.mean(axis=-1), 0, atol=1e-4), "each vector should have mean 0 over its d features"
assert np.allclose(out.data.std(axis=-1), 1, atol=1e-3), "each vector should have standard deviation 1"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("add_and_norm__statistics")  # this submission's own inputs, none of the visible ones
T, N, d = int(rng.integers(1, 8)), int(rng.integers(2, 5)), int(rng.integers(5, 16))
x_old = rng.normal(rng.uniform(-3, 3), rng.uniform(0.5, 5), size=(T, N, d)).astype(np.float32)
x_new = rng.normal(size=(T, N, d)).astype(np.float32)
total = x_old + x_new
want = (total - total.mean(axis=-1, keepdims=True)) / np.sqrt(total.var(axis=-1, keepdims=True) + 1e-5)
out_shape, zeros = (T, N, d), np.zeros((T, N, d), dtype=np.float32)
out = ResidualConnectionAndLayerNorm(d)(x_old.copy(), mg.tensor(x_new))
same = ResidualConnectionAndLayerNorm(d)(total.copy(), zeros)
assert out.shape == out_shape and np.shape(same) == out_shape, (
    f"output shapes {out.shape} and {np.shape(same)}, expected the inputs' shape"
)
assert np.allclose(out.data, want, atol=1e-4), "each vector should be normalised over its d features: (x - mean) / sqrt(var + eps)"
assert np.allclose(np.asarray(same), want, atol=1e-4), "only the sum x_old + x_new should matter"
### END HIDDEN TESTS

# %% course={"task": "add_and_norm"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "add_and_norm__epsilon", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that epsilon is added to the variance under the square root: a constant vector stays finite.
norm = ResidualConnectionAndLayerNorm(4)
norm.bias = mg.tensor(np.array([0.5, -1, 2, 0], dtype=np.float32))
flat = norm(np.full((2, 4), 3, dtype=np.float32), mg.zeros((2, 4), dtype=np.float32)).data
assert flat.shape == (2, 4), f"a constant (2, 4) input gave an output of shape {flat.shape}, expected (2, 4)"
assert np.all(np.isfinite(flat)), f"a constant vector (variance 0) gave {flat[0]}: is epsilon added to the variance?"
assert np.allclose(flat, [0.5, -1, 2, 0], atol=1e-6), "a constant vector normalises to 0, so the output is the bias"
r = np.sqrt(np.float32(1e-5))  # entries -r and +r: variance r**2 = epsilon, so sqrt(variance + epsilon) = sqrt(2) * r
small = ResidualConnectionAndLayerNorm(4)(np.array([[-r, -r, r, r]], dtype=np.float32), mg.zeros((1, 4), dtype=np.float32)).data
assert small.shape == (1, 4), f"a (1, 4) input gave an output of shape {small.shape}, expected (1, 4)"
assert np.allclose(small, np.array([[-1, -1, 1, 1]]) / np.sqrt(2), atol=1e-3), (
    f"entries of plus or minus sqrt(epsilon) gave {np.round(small[0], 3)}, expected plus or minus 1/sqrt(2) = 0.707: "
    "epsilon goes inside the square root, added to the variance, not to the standard deviation"
)
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("add_and_norm__epsilon")  # this submission's own inputs
# a tiny variance, half to twice epsilon: sqrt(var + eps) and sqrt(var) + eps differ by a factor of 1.2 to 1.7
N, d = int(rng.integers(1, 5)), int(rng.integers(5, 10))
spread = rng.normal(size=(N, d))
spread = spread - spread.mean(axis=-1, keepdims=True)
spread = spread * np.sqrt(rng.uniform(0.5, 2, size=(N, 1)) * 1e-5 / spread.var(axis=-1, keepdims=True))
tiny = (spread + rng.uniform(-0.05, 0.05, size=(N, 1))).astype(np.float32)
centred = tiny - tiny.mean(axis=-1, keepdims=True, dtype=np.float64)
want = centred / np.sqrt(centred.var(axis=-1, keepdims=True) + 1e-5)
out_shape, zeros = (N, d), np.zeros((N, d), dtype=np.float32)
got = ResidualConnectionAndLayerNorm(d)(tiny.copy(), mg.tensor(zeros)).data
assert got.shape == out_shape, f"an output of shape {got.shape}, expected the input's shape"
assert np.allclose(got, want, atol=1e-3), "on a vector whose variance is as small as epsilon, the output is wrong: epsilon belongs under the square root"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "post_and_pre_ln_text", "locked": true, "schema_version": 3, "solution": false}
# Normalising after the sum is the original Transformer's order (*post-LN*): a normalisation sits on the main path between every two layers, so a deep stack's gradient passes through all of them, and deep post-LN models need the learning rate warmed up slowly. Most Transformers today normalise the sub-layer's input instead, $x_\text{old} + \operatorname{sublayer}(\operatorname{Norm}(x_\text{old}))$ (*pre-LN*), leaving one path from top to bottom untouched. With two layers either works; exercise 3 tries pre-LN.

# %% [markdown] nbgrader={"grade": false, "grade_id": "encoder_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part F: the encoder layer (3 points)
#
# An encoder layer lets every source position read every other one, *self-attention* (queries, keys and values are all the source), then passes each position alone through a two-layer *position-wise feed-forward network*:
#
# $$\operatorname{FF}(x) = \operatorname{ReLU}(x W_1 + b_1)\, W_2 + b_2 .$$
#
# A MyNN `dense` layer applied to a (T, N, d) array works over the last axis, with the same weights at every position. Attention mixes the positions; the feed-forward network works on each mixture alone.
#
# Write `FeedForward`: `dense` layers `dense1` (in_dim → h_dim) and `dense2` (h_dim → out_dim), both with `glorot_normal` weights, and a ReLU between them.

# %% nbgrader={"grade": false, "grade_id": "feed_forward", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
class FeedForward:
    """Two dense layers with a ReLU between them, applied at every position.

    Attributes
    ----------
    dense1 : mynn dense layer, in_dim -> h_dim
    dense2 : mynn dense layer, h_dim -> out_dim
    """

    def __init__(self, in_dim, h_dim, out_dim):
        """
        Parameters
        ----------
        in_dim : int
            The width of the input vectors.
        h_dim : int
            The number of hidden units.
        out_dim : int
            The width of the output vectors.
        """
        ### BEGIN SOLUTION
        self.dense1 = dense(in_dim, h_dim, weight_initializer=glorot_normal)
        self.dense2 = dense(h_dim, out_dim, weight_initializer=glorot_normal)
        ### END SOLUTION

    def __call__(self, x):
        """
        Parameters
        ----------
        x : array_like, shape=(..., in_dim)

        Returns
        -------
        mygrad.Tensor, shape=(..., out_dim)
        """
        ### BEGIN SOLUTION
        return self.dense2(relu(self.dense1(x)))
        ### END SOLUTION

    @property
    def parameters(self):
        """The learnable tensors of this layer."""
        return self.dense1.parameters + self.dense2.parameters


# %% [markdown] nbgrader={"grade": false, "grade_id": "encoder_picture_text", "locked": true, "schema_version": 3, "solution": false}
# ![One encoder layer: self-attention on the source under the padding mask, add and norm, then a feed-forward network, add and norm](figures/encoder_layer.svg)
#
# *Figure: the two lines of the formula below, bottom to top: self-attention then $\operatorname{Norm}_1$, feed-forward then $\operatorname{Norm}_2$; each residual arrow is the $x_\text{old}$ of Part E.*
#
# $$X_1 = \operatorname{Norm}_1\big(\text{src},\; \operatorname{MHA}(\text{src}, \text{src}, \text{src};\ \text{mask})\big), \qquad \text{out} = \operatorname{Norm}_2\big(X_1,\; \operatorname{FF}(X_1)\big).$$
#
# Input and output are both (T, N, d), so layers stack. The mask comes as an argument (Part I builds it once for all layers); with it, the outputs at real positions do not depend on the padding.
#
# Write `TransformerEncoder` (attributes `self_attn`, `add_norm1`, `ff`, `add_norm2`). The tests put parts of their own into these attributes and compare the output with values worked out from them.

# %% nbgrader={"grade": false, "grade_id": "encoder", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
class TransformerEncoder:
    """Self-attention, add & norm, feed-forward, add & norm.

    Attributes
    ----------
    self_attn : MultiheadAttention
    add_norm1 : ResidualConnectionAndLayerNorm
    ff : FeedForward, d -> h_dim -> d
    add_norm2 : ResidualConnectionAndLayerNorm
    """

    def __init__(self, dim, h_dim, n_head=3):
        """
        Parameters
        ----------
        dim : int
            The model width d (input and output).
        h_dim : int
            The number of hidden units of the feed-forward network.
        n_head : int
            The number of attention heads.
        """
        ### BEGIN SOLUTION
        self.self_attn = MultiheadAttention(dim, n_head=n_head)
        self.add_norm1 = ResidualConnectionAndLayerNorm(dim)
        self.ff = FeedForward(dim, h_dim, dim)
        self.add_norm2 = ResidualConnectionAndLayerNorm(dim)
        ### END SOLUTION

    def __call__(self, src, mask=None):
        """
        Parameters
        ----------
        src : array_like, shape=(T, N, d)
            The source sequences (or the previous encoder layer's output).
        mask : Optional[numpy.ndarray], shape=(T, N, T), dtype=bool
            The self-attention mask (``padding_mask``): which keys each position may read.

        Returns
        -------
        mygrad.Tensor, shape=(T, N, d)
        """
        ### BEGIN SOLUTION
        x1 = self.add_norm1(src, self.self_attn(src, src, src, mask=mask))
        return self.add_norm2(x1, self.ff(x1))
        ### END SOLUTION

    @property
    def parameters(self):
        """The learnable tensors of this layer."""
        return (
            self.self_attn.parameters
            + self.add_norm1.parameters
            + self.ff.parameters
            + self.add_norm2.parameters
        )


# %%
layer = TransformerEncoder(dim=8, h_dim=16, n_head=2)
print(layer(np.random.default_rng(0).normal(size=(5, 3, 8)).astype(np.float32)).shape)  # (5, 3, 8)

# %% course={"task": "feed_forward"} nbgrader={"grade": true, "grade_id": "encoder__feed_forward", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that FeedForward computes ReLU(x W1 + b1) W2 + b2 at every position.
ff = FeedForward(3, 4, 2)
w1_shape, w2_shape = ff.dense1.weight.shape, ff.dense2.weight.shape
params = ff.parameters
assert w1_shape == (3, 4) and w2_shape == (4, 2), (
    f"dense1.weight {w1_shape} and dense2.weight {w2_shape}: FeedForward(3, 4, 2) maps in_dim 3 -> h_dim 4 -> out_dim 2"
)
assert len(params) == 4, f"{len(params)} parameters, expected two weights and two biases: dense1 and dense2 each with a bias"
rng = np.random.default_rng(4)
W1, b1, W2, b2 = (rng.normal(size=shape).astype(np.float32) for shape in [(3, 4), (1, 4), (4, 2), (1, 2)])
x = rng.normal(size=(5, 2, 3)).astype(np.float32)
want = np.maximum(x @ W1 + b1, 0) @ W2 + b2
linear = (x @ W1 + b1) @ W2 + b2  # the two layers without the ReLU
ff.dense1.weight, ff.dense1.bias = mg.tensor(W1), mg.tensor(b1)
ff.dense2.weight, ff.dense2.bias = mg.tensor(W2), mg.tensor(b2)
out = ff(x)
assert out.shape == (5, 2, 2), f"output shape {out.shape}, expected (5, 2, 2)"
assert not np.allclose(out.data, linear, atol=1e-5), "the output is (x W1 + b1) W2 + b2: put the ReLU between the two layers"
assert not np.allclose(out.data, np.maximum(linear, 0), atol=1e-5), (
    "the ReLU came after dense2; it goes between the two layers, on x W1 + b1"
)
assert np.allclose(out.data, want, atol=1e-5), "expected ReLU(x W1 + b1) W2 + b2"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("encoder__feed_forward")  # this submission's own inputs
in_dim = int(rng.integers(2, 8))
out_dim = in_dim + int(rng.integers(1, 5))  # in_dim, h_dim and out_dim all differ
h_dim = out_dim + int(rng.integers(1, 6))
T, N = int(rng.integers(1, 7)), int(rng.integers(1, 5))
W1, b1, W2, b2 = (rng.normal(size=shape).astype(np.float32) for shape in [(in_dim, h_dim), (1, h_dim), (h_dim, out_dim), (1, out_dim)])
x = rng.normal(size=(T, N, in_dim)).astype(np.float32)
want = np.maximum(x @ W1 + b1, 0) @ W2 + b2
shapes_wanted, out_shape = ((in_dim, h_dim), (h_dim, out_dim)), (T, N, out_dim)
ff = FeedForward(in_dim, h_dim, out_dim)
w1_shape, w2_shape = ff.dense1.weight.shape, ff.dense2.weight.shape
ff.dense1.weight, ff.dense1.bias = mg.tensor(W1), mg.tensor(b1)
ff.dense2.weight, ff.dense2.bias = mg.tensor(W2), mg.tensor(b2)
out = ff(x.copy())
assert (w1_shape, w2_shape) == shapes_wanted, "FeedForward(in_dim, h_dim, out_dim): dense1 is in_dim -> h_dim and dense2 h_dim -> out_dim"
assert out.shape == out_shape, "the output should be (T, N, out_dim)"
assert np.allclose(out.data, want, atol=1e-4), "on other widths, expected ReLU(x W1 + b1) W2 + b2"
### END HIDDEN TESTS

# %% course={"task": "encoder"} nbgrader={"grade": true, "grade_id": "encoder__layer", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that TransformerEncoder chains self-attention (with the mask), add & norm, feed-forward, add & norm.
# The test puts stand-ins into your layer through its documented attributes (parts whose outputs it knows), so only
# Part F's wiring counts here: a mistake in MultiheadAttention, add & norm or FeedForward costs that part's points.
from course.checks import StandInAttention, StandInFeedForward, StandInNorm

rng = np.random.default_rng(5)
W = (rng.normal(size=(4, 4)) / 2).astype(np.float32)  # the feed-forward stand-in's matrix
src = rng.normal(size=(3, 2, 4)).astype(np.float32)  # T = 3, N = 2, d = 4
enc = TransformerEncoder(dim=4, h_dim=6, n_head=2)
enc.self_attn, enc.ff = StandInAttention(0), StandInFeedForward(4, W.copy())
enc.add_norm1, enc.add_norm2 = StandInNorm(2, 1.5, 0.25), StandInNorm(6, -0.5, 1.0)
mask = np.array([[[True, True, True], [True, True, False]]] * 3)  # (T, N, T): sequence 1 has 2 real positions
out = enc(src.copy(), mask.copy())
params = enc.parameters
labels = sorted(float(p.data.flat[0]) for p in params)  # the number each listed tensor holds
attn_mask, attn_inputs = enc.self_attn.mask, [enc.self_attn.query, enc.self_attn.key, enc.self_attn.value]
norm_calls, ff_input, norm2_inputs = [enc.add_norm1.calls, enc.add_norm2.calls], enc.ff.x, enc.add_norm2.inputs
assert out.shape == (3, 2, 4) and out.dtype == np.float32, f"output {out.shape} {out.dtype}, expected (3, 2, 4) float32"
assert labels == list(range(8)), (
    f"parameters holds the stand-ins' tensors numbered {labels}: list self_attn's, add_norm1's, ff's and add_norm2's "
    "parameters, each once (numbered 0 to 7 here)"
)
assert attn_mask is not None and np.array_equal(attn_mask, mask), (
    "self-attention got another mask than the layer's: pass the mask to self-attention"
)
assert all(np.array_equal(x, src) for x in attn_inputs), (
    "self-attention reads the source src as its queries, keys and values: self_attn(src, src, src, mask=mask)"
)
assert norm_calls == [1, 1], (
    f"add_norm1 ran {norm_calls[0]} time(s) and add_norm2 {norm_calls[1]}: if add_norm1 served both sub-layers, "
    "the feed-forward network's add & norm is add_norm2, with its own gain and bias"
)
assert ff_input is not None and not np.allclose(ff_input, src), (
    "the feed-forward network read the source src; it reads X1, the output of the first add & norm"
)
assert not any(np.allclose(x, src) for x in norm2_inputs), (
    "the second add & norm added the source src; its residual input is X1, the output of the first add & norm"
)
want = np.array([
    [
        [1.1746, 1.3657, 0.658, 0.9644],
        [0.6722, 0.5414, 0.6597, 1.3995],
    ],
    [
        [0.6257, 0.6812, 1.4648, 0.8704],
        [1.4153, 1.1416, 1.3621, 0.6808],
    ],
    [
        [1.0816, 1.2273, 1.205, 0.8672],
        [1.0844, 1.2702, 0.5232, 1.3033],
    ],
])
assert np.allclose(out.data, want, atol=1e-4), (
    f"with the test's stand-ins, sequence 0's output is\n{np.round(out.data[:, 0], 3)}\nexpected\n"
    f"{np.round(want[:, 0], 3)}: X1 = add_norm1(src, self_attn(src, src, src)), then add_norm2(X1, ff(X1))"
)
### BEGIN HIDDEN TESTS
from course.checks import encoder_stand_ins_output as chain  # the layer wired right on the stand-ins, in NumPy
from course.draws import hidden_rng

rng = hidden_rng("encoder__layer")  # this submission's own inputs
T, N, d, h = int(rng.integers(2, 8)), int(rng.integers(1, 5)), int(rng.integers(3, 9)), int(rng.integers(1, 4))
W6 = (rng.normal(size=(d, d)) / 2).astype(np.float32)
gains = tuple(round(float(g), 2) for g in rng.uniform(-2, 2, size=4))
src6 = rng.normal(size=(T, N, d)).astype(np.float32)
lengths = rng.integers(1, T + 1, size=N)
mask6 = np.broadcast_to(np.arange(T)[None, None, :] < lengths[None, :, None], (T, N, T)).copy()
want6 = chain(src6, mask6, gains, W6)
h_dim, out_shape = int(rng.integers(2, 9)), (T, N, d)
enc6 = TransformerEncoder(dim=d, h_dim=h_dim, n_head=h)
enc6.self_attn, enc6.ff = StandInAttention(0), StandInFeedForward(4, W6.copy())
enc6.add_norm1, enc6.add_norm2 = StandInNorm(2, gains[0], gains[1]), StandInNorm(6, gains[2], gains[3])
out6 = enc6(src6.copy(), mask6.copy())
assert out6.shape == out_shape, f"another width and length: output shape {out6.shape}, expected (T, N, d)"
assert np.allclose(out6.data, want6, atol=1e-4), (
    "another width, length and mask, with the test's stand-ins: the encoder layer's output differs"
)
### END HIDDEN TESTS


# %% course={"task": "encoder"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "encoder__padding", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that with the padding mask, the outputs at real positions do not change when the padding grows.
# As in the check above, the test's stand-ins take the place of your layer's parts, and the masks are the test's own.
from course.checks import StandInAttention, StandInFeedForward, StandInNorm

def padding(lengths, T):
    """The test's own padding mask (T, N, T): query i of sequence n may read key j when j < lengths[n]."""
    return np.broadcast_to(np.arange(T)[None, None, :] < np.asarray(lengths)[None, :, None], (T, len(lengths), T)).copy()


rng = np.random.default_rng(15)
W = (rng.normal(size=(4, 4)) / 2).astype(np.float32)  # the feed-forward stand-in's matrix
enc = TransformerEncoder(dim=4, h_dim=6, n_head=2)
enc.self_attn, enc.ff = StandInAttention(0), StandInFeedForward(4, W.copy())
enc.add_norm1, enc.add_norm2 = StandInNorm(2, 1.25, -0.25), StandInNorm(6, 0.5, 0.75)
short = rng.normal(size=(3, 1, 4)).astype(np.float32)  # one sequence of 3 real positions
alone = enc(short.copy(), np.ones((3, 1, 3), dtype=bool)).data
want = np.array([
    [
        [0.8552, 1.2057, 0.7382, 0.512],
    ],
    [
        [0.4171, 0.2936, 0.9476, 1.1317],
    ],
    [
        [0.8585, 0.2698, 0.7614, 0.2629],
    ],
])  # its outputs, with the stand-ins
assert alone.shape == (3, 1, 4), f"output shape {alone.shape}, expected (T, N, d) = (3, 1, 4)"
assert np.allclose(alone, want, atol=1e-4), (
    f"with the test's stand-ins, the output is\n{np.round(alone[:, 0], 3)}\nexpected\n{np.round(want[:, 0], 3)}"
)
padded = [np.concatenate([short, rng.normal(size=(pad, 1, 4)).astype(np.float32)]) for pad in (1, 4)]  # junk after the end
outs = [enc(x.copy(), padding([3], len(x))).data for x in padded]
for pad, out in zip((1, 4), outs):
    assert out.shape == (3 + pad, 1, 4), f"with {pad} padded position(s): output shape {out.shape}, expected {(3 + pad, 1, 4)}"
    assert np.allclose(out[:3], want, atol=1e-4), f"{pad} padded position(s) changed the outputs at real positions"
### BEGIN HIDDEN TESTS
from course.checks import encoder_stand_ins_output as chain  # the layer wired right on the stand-ins, in NumPy
from course.draws import hidden_rng

rng = hidden_rng("encoder__padding")  # this submission's own inputs, none of the visible ones
L, d, N = int(rng.integers(1, 6)), int(rng.integers(3, 9)), int(rng.integers(2, 5))
T = L + int(rng.integers(1, 5))  # the short sequence is padded
W = (rng.normal(size=(d, d)) / 2).astype(np.float32)
gains = tuple(round(float(g), 2) for g in rng.uniform(-2, 2, size=4))
short = rng.normal(size=(L, 1, d)).astype(np.float32)
padded_n = int(rng.integers(0, N))  # the column that holds the short sequence; the others are T long
batch = rng.normal(size=(T, N, d)).astype(np.float32)
batch[:L, padded_n] = short[:, 0]
batch[L:, padded_n] = rng.normal(size=(T - L, d))  # junk after its end
lengths = np.full(N, T)
lengths[padded_n] = L
want = chain(short, np.ones((L, 1, L), dtype=bool), gains, W)[:, 0]  # its outputs alone, with the stand-ins
h_dim, h, out_shape = int(rng.integers(2, 9)), int(rng.integers(1, 4)), (T, N, d)
enc = TransformerEncoder(dim=d, h_dim=h_dim, n_head=h)
enc.self_attn, enc.ff = StandInAttention(0), StandInFeedForward(4, W.copy())
enc.add_norm1, enc.add_norm2 = StandInNorm(2, gains[0], gains[1]), StandInNorm(6, gains[2], gains[3])
out = enc(batch.copy(), padding(lengths, T)).data
assert out.shape == out_shape, f"output shape {out.shape} for a batch, expected (T, N, d)"
assert np.allclose(out[:L, padded_n], want, atol=1e-4), "in a batch, a padded sequence should give its unpadded outputs"
### END HIDDEN TESTS


# %% [markdown] nbgrader={"grade": false, "grade_id": "decoder_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part G: the decoder layer (3 points)
#
# The decoder works one step behind: its input is `START` and the plain text, and each position predicts the next symbol. Its self-attention runs under the causal mask. A second attention, *cross-attention*, takes queries from the decoder and keys and values from the encoder's output, under the source's padding mask: here the cipher text enters the decoder. A feed-forward network follows, and each sub-layer gets its add & norm.

# %% [markdown] nbgrader={"grade": false, "grade_id": "decoder_picture_text", "locked": true, "schema_version": 3, "solution": false}
# ![One decoder layer: self-attention under the causal mask, add and norm; cross-attention from that result to the encoder output E under the source's padding mask, add and norm; a feed-forward network, add and norm](figures/decoder_layer.svg)
#
# *Figure: the three sub-layers of the formula below, bottom to top; only the middle one reads $E$, and it is the only attention whose t queries and T keys differ.*
#
# $$\begin{aligned} X_1 &= \operatorname{Norm}_1\big(\text{tgt},\; \operatorname{MHA}_\text{self}(\text{tgt}, \text{tgt}, \text{tgt};\ \text{self\_mask})\big), \\ X_2 &= \operatorname{Norm}_2\big(X_1,\; \operatorname{MHA}_\text{cross}(X_1, E, E;\ \text{cross\_mask})\big), \\ \text{out} &= \operatorname{Norm}_3\big(X_2,\; \operatorname{FF}(X_2)\big). \end{aligned}$$

# %% [markdown] nbgrader={"grade": false, "grade_id": "decoder_task_text", "locked": true, "schema_version": 3, "solution": false}
# $E$ is the encoder's output, (T, N, d). `self_mask` (t, N, t) comes from `causal_mask`, `cross_mask` (t, N, T) from `padding_mask` of the source lengths. Without a `self_mask`, use `causal_mask` with every length t: a decoder must never see the future, whoever calls it.
#
# Write `TransformerDecoder` with attributes `self_attn`, `add_norm1`, `enc_dec_attn`, `add_norm2`, `ff` and `add_norm3`.

# %% nbgrader={"grade": false, "grade_id": "decoder", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
class TransformerDecoder:
    """Masked self-attention, encoder-decoder attention and feed-forward, each with add & norm.

    Attributes
    ----------
    self_attn : MultiheadAttention
        Causally masked attention of the target on itself.
    add_norm1 : ResidualConnectionAndLayerNorm
    enc_dec_attn : MultiheadAttention
        Attention of the target (queries) on the encoder output (keys, values).
    add_norm2 : ResidualConnectionAndLayerNorm
    ff : FeedForward, d -> h_dim -> d
    add_norm3 : ResidualConnectionAndLayerNorm
    """

    def __init__(self, dim, h_dim, n_head=3):
        """
        Parameters
        ----------
        dim : int
            The model width d (input and output).
        h_dim : int
            The number of hidden units of the feed-forward network.
        n_head : int
            The number of heads of both attentions.
        """
        ### BEGIN SOLUTION
        self.self_attn = MultiheadAttention(dim, n_head=n_head)
        self.add_norm1 = ResidualConnectionAndLayerNorm(dim)
        self.enc_dec_attn = MultiheadAttention(dim, n_head=n_head)
        self.add_norm2 = ResidualConnectionAndLayerNorm(dim)
        self.ff = FeedForward(dim, h_dim, dim)
        self.add_norm3 = ResidualConnectionAndLayerNorm(dim)
        ### END SOLUTION

    def __call__(self, enc_out, tgt, self_mask=None, cross_mask=None):
        """
        Parameters
        ----------
        enc_out : array_like, shape=(T, N, d)
            The output of the last encoder layer.
        tgt : array_like, shape=(t, N, d)
            The decoder input (or the previous decoder layer's output).
        self_mask : Optional[numpy.ndarray], shape=(t, N, t), dtype=bool
            The self-attention mask (``causal_mask``); None means
            ``causal_mask`` for unpadded inputs, so no position ever reads a later one.
        cross_mask : Optional[numpy.ndarray], shape=(t, N, T), dtype=bool
            The encoder-decoder attention mask (``padding_mask`` of the source).

        Returns
        -------
        mygrad.Tensor, shape=(t, N, d)
        """
        ### BEGIN SOLUTION
        if self_mask is None:
            t, N = tgt.shape[:2]
            self_mask = causal_mask(np.full(N, t), t)
        x1 = self.add_norm1(tgt, self.self_attn(tgt, tgt, tgt, mask=self_mask))
        x2 = self.add_norm2(x1, self.enc_dec_attn(x1, enc_out, enc_out, mask=cross_mask))
        return self.add_norm3(x2, self.ff(x2))
        ### END SOLUTION

    @property
    def parameters(self):
        """The learnable tensors of this layer."""
        return (
            self.self_attn.parameters
            + self.add_norm1.parameters
            + self.enc_dec_attn.parameters
            + self.add_norm2.parameters
            + self.ff.parameters
            + self.add_norm3.parameters
        )


# %%
layer = TransformerDecoder(dim=8, h_dim=16, n_head=2)
rng = np.random.default_rng(0)
out = layer(rng.normal(size=(6, 3, 8)).astype(np.float32), rng.normal(size=(4, 3, 8)).astype(np.float32))
print(out.shape)  # (4, 3, 8)
print(np.round(np.asarray(layer.self_attn.a_ij)[:, 0, 0], 2))  # no mask passed: causal, zeros above the diagonal

# %% course={"task": "decoder"} nbgrader={"grade": true, "grade_id": "decoder__causal", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that without a mask argument no target position attends to a later one (the causal default).
# The test puts stand-ins into your layer through its documented attributes (parts whose outputs it knows), so only
# Part G's wiring counts here: a mistake in MultiheadAttention, add & norm or FeedForward costs that part's points.
from course.checks import decoder_stand_ins

rng = np.random.default_rng(6)
W = (rng.normal(size=(4, 4)) / 2).astype(np.float32)  # the feed-forward stand-in's matrix
dec = TransformerDecoder(dim=4, h_dim=6, n_head=2)
decoder_stand_ins(dec, W.copy())
enc_out = rng.normal(size=(4, 2, 4)).astype(np.float32)  # T = 4 = t: the two attentions' shapes alike
tgt = rng.normal(size=(4, 2, 4)).astype(np.float32)  # t = 4, N = 2
out = dec(mg.tensor(enc_out), tgt.copy()).data
self_mask, cross = dec.self_attn.mask, [dec.enc_dec_attn.query, dec.enc_dec_attn.key, dec.enc_dec_attn.value]
x1, norm2_inputs = dec.add_norm1.out, dec.add_norm2.inputs
own_causal = causal_mask(np.full(2, 4), 4)  # your causal_mask, as the decoder should call it
causal = np.broadcast_to(np.tril(np.ones((4, 4), dtype=bool))[:, None, :], (4, 2, 4))  # (t, N, t)
assert out.shape == (4, 2, 4), (
    f"output shape {out.shape}, expected (t, N, d) = (4, 2, 4), one row per decoder position: if "
    "the cross-attention's queries came from enc_out, they come from the decoder (X1), its keys and values from enc_out"
)
assert self_mask is not None, (
    "self_attn got no mask, so a target position may read a later one: the self-attention needs self_mask, "
    "and causal_mask for unpadded inputs when none is given"
)
assert np.array_equal(own_causal, causal), (
    "without self_mask, the decoder uses your causal_mask, which fails here (a position reads a later one, or cannot "
    "read itself or an earlier one): fix causal_mask (Part D) first"
)
assert np.array_equal(self_mask, causal), (
    "without self_mask, the self-attention's mask should be causal_mask(np.full(N, t), t): every length t"
)
assert np.array_equal(cross[1], enc_out) and np.array_equal(cross[2], enc_out), (
    "the cross-attention's queries came from enc_out, or its keys and values did not: they come from the decoder (X1), "
    "its keys and values from enc_out"
)
assert x1 is not None and np.allclose(cross[0], x1, atol=1e-6), (
    "the cross-attention's queries are X1, the output of the first add & norm"
)
assert not any(np.allclose(x, tgt) for x in norm2_inputs if x.shape == tgt.shape), (
    "the cross-attention's add & norm added the decoder input tgt; its residual input is X1, the output of the first add & norm"
)
want = np.array([
    [
        [0.1795, 0.238, -0.4233, 0.1524],
        [0.183, 0.2157, -0.1135, 0.2269],
    ],
    [
        [0.2116, 0.1775, -0.1346, 0.1312],
        [0.072, 0.195, -0.4626, 0.0867],
    ],
    [
        [0.2313, 0.1797, -0.1294, -0.0357],
        [0.1935, 0.2372, -0.0146, 0.2027],
    ],
    [
        [0.1943, 0.2139, -0.0485, 0.023],
        [0.236, 0.2304, -0.5076, 0.0903],
    ],
])
assert np.allclose(out, want, atol=1e-4), (
    f"with the test's stand-ins, sequence 0's output is\n{np.round(out[:, 0], 3)}\nexpected\n{np.round(want[:, 0], 3)}"
)
changed = tgt.copy()
changed[2:] += 1  # change the last two inputs
out2 = dec(mg.tensor(enc_out), changed).data
assert out2.shape == (4, 2, 4), f"output shape {out2.shape}, expected (t, N, d) = (4, 2, 4)"
assert np.allclose(out2[:2], want[:2], atol=1e-4), "changing inputs 2 and 3 changed the outputs at positions 0-1"
assert not np.allclose(out2[2:], want[2:], atol=1e-4), "changing inputs 2 and 3 should change the outputs at positions 2-3"
### BEGIN HIDDEN TESTS
from course.checks import decoder_stand_ins_output as chain  # the layer wired right on the stand-ins, in NumPy
from course.draws import hidden_rng

rng = hidden_rng("decoder__causal")  # this submission's own inputs, none of the visible ones
t, T, N, d = int(rng.integers(3, 8)), int(rng.integers(2, 8)), int(rng.integers(1, 4)), int(rng.integers(3, 8))
W = (rng.normal(size=(d, d)) / 2).astype(np.float32)
enc_out = rng.normal(size=(T, N, d)).astype(np.float32)
tgt = rng.normal(size=(t, N, d)).astype(np.float32)
first_changed = int(rng.integers(1, t))  # the inputs from here on change; the outputs before it must not
changed = tgt.copy()
changed[first_changed:] += rng.uniform(0.5, 2, size=(t - first_changed, N, d)).astype(np.float32)
causal = np.broadcast_to(np.tril(np.ones((t, t), dtype=bool))[:, None, :], (t, N, t))
every_key = np.ones((t, N, T), dtype=bool)
want = chain(enc_out, tgt, causal, every_key, W)
want2 = chain(enc_out, changed, causal, every_key, W)
out_shape, h_dim, h = (t, N, d), int(rng.integers(2, 9)), int(rng.integers(1, 4))
dec = TransformerDecoder(dim=d, h_dim=h_dim, n_head=h)
decoder_stand_ins(dec, W.copy())
out = dec(mg.tensor(enc_out), tgt.copy()).data
out2 = dec(mg.tensor(enc_out), changed.copy()).data
assert out.shape == out_shape and out2.shape == out_shape, f"output shapes {out.shape} and {out2.shape}, expected (t, N, d)"
assert np.allclose(out, want, atol=1e-4), "without a mask argument, the output differs on the test's stand-ins"
assert np.allclose(out2[:first_changed], want[:first_changed], atol=1e-4), (
    "changing later inputs changed the outputs at earlier positions"
)
assert np.allclose(out2, want2, atol=1e-4), "with later inputs changed, the later outputs differ on the test's stand-ins"
### END HIDDEN TESTS


# %% course={"task": "decoder"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "decoder__layer", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that TransformerDecoder chains masked self-attention, cross-attention and feed-forward with add & norm.
# As in the check above, the test's stand-ins take the place of your layer's parts.
from course.checks import decoder_stand_ins

rng = np.random.default_rng(7)
W = (rng.normal(size=(4, 4)) / 2).astype(np.float32)  # the feed-forward stand-in's matrix
dec = TransformerDecoder(dim=4, h_dim=6, n_head=2)
decoder_stand_ins(dec, W.copy())
enc_out = rng.normal(size=(4, 2, 4)).astype(np.float32)  # T = 4
tgt = rng.normal(size=(3, 2, 4)).astype(np.float32)  # t = 3, N = 2
self_mask = np.array([[[1, 0, 0], [1, 0, 0]], [[1, 1, 0], [1, 1, 0]], [[1, 1, 1], [1, 1, 0]]], dtype=bool)  # t = 3 and 2 real
cross_mask = np.array([[[1, 1, 1, 1], [1, 1, 1, 0]]] * 3, dtype=bool)  # T = 4 and 3 real
out = dec(mg.tensor(enc_out), tgt.copy(), self_mask.copy(), cross_mask.copy())
params = dec.parameters
labels = sorted(float(p.data.flat[0]) for p in params)  # the number each listed tensor holds
masks = [dec.self_attn.mask, dec.enc_dec_attn.mask]
norm2_inputs, ff_input, x2 = dec.add_norm2.inputs, dec.ff.x, dec.add_norm2.out
assert out.shape == (3, 2, 4) and out.dtype == np.float32, f"output {out.shape} {out.dtype}, expected (3, 2, 4) float32"
assert labels == list(range(12)), (
    f"parameters holds the stand-ins' tensors numbered {labels}: list the parameters of all six parts, each once "
    "(numbered 0 to 11 here)"
)
assert masks[0] is not None and np.array_equal(masks[0], self_mask), (
    "self_attn got another mask than self_mask: the self-attention needs self_mask"
)
assert masks[1] is not None and np.array_equal(masks[1], cross_mask), (
    "enc_dec_attn got another mask than cross_mask: pass cross_mask to the cross-attention"
)
assert not any(np.allclose(x, tgt) for x in norm2_inputs if x.shape == tgt.shape), (
    "the cross-attention's add & norm added the decoder input tgt; its residual input is X1, the output of the first add & norm"
)
assert ff_input is not None and x2 is not None and np.allclose(ff_input, x2, atol=1e-6), (
    "the feed-forward network reads X2, the output of the second add & norm"
)
want = np.array([
    [
        [-0.0349, -0.6097, -0.1481, 0.1764],
        [-0.2535, -0.4398, -0.0764, 0.0825],
    ],
    [
        [-0.3188, -0.2838, -0.1141, 0.1436],
        [-0.3522, -0.134, -0.1025, 0.2357],
    ],
    [
        [-0.0833, -0.0628, -0.1347, 0.1098],
        [0.0863, -0.0991, -0.1813, 0.2323],
    ],
])
assert np.allclose(out.data, want, atol=1e-4), (
    f"with the test's stand-ins, sequence 0's output is\n{np.round(out.data[:, 0], 3)}\nexpected\n{np.round(want[:, 0], 3)}"
)
### BEGIN HIDDEN TESTS
from course.checks import decoder_stand_ins_output as chain  # the layer wired right on the stand-ins, in NumPy
from course.draws import hidden_rng

rng = hidden_rng("decoder__layer")  # this submission's own inputs
t, T, N, d = int(rng.integers(2, 8)), int(rng.integers(2, 8)), int(rng.integers(1, 4)), int(rng.integers(3, 8))
W6 = (rng.normal(size=(d, d)) / 2).astype(np.float32)
enc6 = rng.normal(size=(T, N, d)).astype(np.float32)
tgt6 = rng.normal(size=(t, N, d)).astype(np.float32)
tgt_lengths, enc_lengths = rng.integers(1, t + 1, size=N), rng.integers(1, T + 1, size=N)
self6 = np.tril(np.ones((t, t), dtype=bool))[:, None, :] & (np.arange(t)[None, :] < tgt_lengths[:, None])[None]
cross6 = np.broadcast_to((np.arange(T)[None, :] < enc_lengths[:, None])[None], (t, N, T)).copy()
want6 = chain(enc6, tgt6, self6, cross6, W6)
h_dim, h = int(rng.integers(2, 9)), int(rng.integers(1, 4))
dec6 = TransformerDecoder(dim=d, h_dim=h_dim, n_head=h)
decoder_stand_ins(dec6, W6.copy())
out6 = dec6(mg.tensor(enc6), tgt6.copy(), self6.copy(), cross6.copy())
assert out6.shape == want6.shape, f"another width and lengths: output shape {out6.shape}, expected (t, N, d)"
assert np.allclose(out6.data, want6, atol=1e-4), "another width, lengths and masks, with the test's stand-ins: the output differs"
### END HIDDEN TESTS


# %% course={"task": "decoder"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "decoder__padding", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that the decoder reads no padded position of the encoder output or of its own input.
# As in the checks above, the test's stand-ins take the place of your layer's parts, and the masks are the test's own.
from course.checks import decoder_stand_ins

rng = np.random.default_rng(16)
W = (rng.normal(size=(4, 4)) / 2).astype(np.float32)  # the feed-forward stand-in's matrix
dec = TransformerDecoder(dim=4, h_dim=6, n_head=2)
decoder_stand_ins(dec, W.copy())
enc_out = rng.normal(size=(6, 2, 4)).astype(np.float32)  # real lengths 6 and 4
tgt = rng.normal(size=(5, 2, 4)).astype(np.float32)  # real lengths 5 and 3
real_keys = np.arange(5)[None, :] < np.array([5, 3])[:, None]  # (N, t): the decoder's real positions
self_mask = np.tril(np.ones((5, 5), dtype=bool))[:, None, :] & real_keys[None]  # (t, N, t): causal and padded
cross_mask = np.broadcast_to((np.arange(6)[None, :] < np.array([6, 4])[:, None])[None], (5, 2, 6)).copy()  # (t, N, T)
out = dec(mg.tensor(enc_out), tgt.copy(), self_mask.copy(), cross_mask.copy()).data
assert out.shape == (5, 2, 4), f"output shape {out.shape}, expected (t, N, d) = (5, 2, 4)"
want = np.array([
    [-0.1429, 0.0758, 0.2179, 0.1514],
    [-0.4035, 0.0923, 0.1873, 0.1979],
    [-0.2191, 0.0515, 0.2315, -0.4472],
])  # sequence 1's real outputs
assert np.allclose(out[:3, 1], want, atol=1e-4), (
    f"with the test's stand-ins, sequence 1's real outputs are\n{np.round(out[:3, 1], 3)}\nexpected\n{np.round(want, 3)}"
)
junk = enc_out.copy()
junk[4:, 1] = 100  # change sequence 1's padded encoder positions
out2 = dec(mg.tensor(junk), tgt.copy(), self_mask.copy(), cross_mask.copy()).data
assert out2.shape == (5, 2, 4), f"output shape {out2.shape}, expected (t, N, d) = (5, 2, 4)"
assert np.allclose(out2[:3, 1], want, atol=1e-4), "padded encoder positions changed sequence 1's real outputs"
### BEGIN HIDDEN TESTS
from course.checks import decoder_stand_ins_output as chain  # the layer wired right on the stand-ins, in NumPy
from course.draws import hidden_rng

rng = hidden_rng("decoder__padding")  # this submission's own inputs, none of the visible ones
t, T, N, d = int(rng.integers(3, 8)), int(rng.integers(3, 9)), int(rng.integers(2, 5)), int(rng.integers(3, 8))
W = (rng.normal(size=(d, d)) / 2).astype(np.float32)
enc_out = rng.normal(size=(T, N, d)).astype(np.float32)
tgt = rng.normal(size=(t, N, d)).astype(np.float32)
# sequence full_n has no padding; sequence pad_n is padded in both inputs; the others are drawn
full_n = int(rng.integers(0, N))
pad_n = (full_n + int(rng.integers(1, N))) % N
tgt_lengths, enc_lengths = rng.integers(1, t + 1, size=N), rng.integers(1, T + 1, size=N)
tgt_lengths[full_n], enc_lengths[full_n] = t, T
tgt_lengths[pad_n], enc_lengths[pad_n] = int(rng.integers(1, t)), int(rng.integers(1, T))
self_mask = np.tril(np.ones((t, t), dtype=bool))[:, None, :] & (np.arange(t)[None, :] < tgt_lengths[:, None])[None]
cross_mask = np.broadcast_to((np.arange(T)[None, :] < enc_lengths[:, None])[None], (t, N, T)).copy()
junk = enc_out.copy()
junk[enc_lengths[pad_n]:, pad_n] = 100  # sequence pad_n's padded encoder positions
later = tgt.copy()
later[tgt_lengths[pad_n]:, pad_n] = 100  # sequence pad_n's padded decoder positions
real = int(tgt_lengths[pad_n])
want = chain(enc_out, tgt, self_mask, cross_mask, W)
others = [n for n in range(N) if n != pad_n]
out_shape, h_dim, h = (t, N, d), int(rng.integers(2, 9)), int(rng.integers(1, 4))
dec = TransformerDecoder(dim=d, h_dim=h_dim, n_head=h)
decoder_stand_ins(dec, W.copy())
out = dec(mg.tensor(enc_out), tgt.copy(), self_mask.copy(), cross_mask.copy()).data
out2 = dec(mg.tensor(junk), tgt.copy(), self_mask.copy(), cross_mask.copy()).data
out3 = dec(mg.tensor(enc_out), later.copy(), self_mask.copy(), cross_mask.copy()).data
assert out.shape == out_shape and out2.shape == out_shape and out3.shape == out_shape, (
    f"output shapes {out.shape}, {out2.shape} and {out3.shape}, expected (t, N, d)"
)
assert np.allclose(out, want, atol=1e-4), "with padding masks, the output differs on the test's stand-ins"
assert np.allclose(out2[:real, pad_n], want[:real, pad_n], atol=1e-4), "padded encoder positions changed a sequence's real outputs"
assert np.allclose(out3[:real, pad_n], want[:real, pad_n], atol=1e-4), "padded decoder positions changed a sequence's real outputs"
assert np.allclose(out[:, full_n], want[:, full_n], atol=1e-4), "a sequence without padding differs on the test's stand-ins"
assert np.allclose(out2[:, others], want[:, others], atol=1e-4), (
    "a sequence should not change when another's padding does"
)
### END HIDDEN TESTS


# %% [markdown] nbgrader={"grade": false, "grade_id": "positional_encoding_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part H: positional encoding (2 points)
#
# Attention treats its inputs as a set: shuffle the source positions and the encoder's outputs are shuffled alike. For a Vigenère cipher position is everything (symbol $i$ is shifted by key symbol $i \bmod 4$), so before the first layer every input vector gets a vector that depends only on its position $p$ added. The original Transformer gives each pair of dimensions a sine and a cosine:
#
# $$PE_{p,\,2i} = \sin\!\Big(\frac{p}{10000^{2i/d}}\Big), \qquad PE_{p,\,2i+1} = \cos\!\Big(\frac{p}{10000^{2i/d}}\Big), \qquad i = 0, 1, \dots$$
#
# Pair $i$ turns by $\omega_i = 1/10000^{2i/d}$ radians per position, the first by one radian, the last hardly at all; together they give every position its own pattern, and moving $k$ positions on rotates pair $i$ by $\omega_i k$, so a linear map can read offsets. For an odd $d$ the last dimension is a sine alone.

# %% [markdown] nbgrader={"grade": false, "grade_id": "positional_encoding_size_text", "locked": true, "schema_version": 3, "solution": false}
# Each full pair has length 1, so with $d = 29$ (14 full pairs) a position's encoding has a norm of about $\sqrt{14} \approx 3.7$, against 1 for a one-hot token. The paper multiplies its learned token embeddings by $\sqrt{d}$ (without saying why; a common reading is that this keeps the tokens from being drowned). Our model has no embedding: attention's projections can weigh the two parts, but the residual path carries src + PE as they are.

# %% [markdown] nbgrader={"grade": false, "grade_id": "positional_encoding_task_text", "locked": true, "schema_version": 3, "solution": false}
# By hand, for $d = 4$: $\omega_0 = 1$ and $\omega_1 = 1/100$. Position 0 is $(0, 1, 0, 1)$, position 1 is $(\sin 1, \cos 1, \sin 0.01, \cos 0.01) \approx (0.841, 0.540, 0.010, 1.000)$, and position 2 is $(\sin 2, \cos 2, \sin 0.02, \cos 0.02) \approx (0.909, -0.416, 0.020, 1.000)$.
#
# Write `PositionalEncoder(d)`'s two methods, in float32: `angles(T)`, the (T, ⌈d/2⌉) angles $p\,\omega_i$ (a row per position, a column per pair), and `__call__(T)`, the (T, 1, d) encoding, sines of those angles on the even dimensions and cosines on the odd ones. Take the angles from `self.angles`: a variant below changes only them. The axis of length 1 lines up with the batch, so `x + encoder(len(x))` encodes every sequence of a batch.

# %% nbgrader={"grade": false, "grade_id": "positional_encoding", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
class PositionalEncoder:
    """The sinusoidal positional encoding: sines on even dimensions, cosines on odd ones."""

    def __init__(self, dim):
        """
        Parameters
        ----------
        dim : int
            The model width d.
        """
        self.dim = dim

    def angles(self, seq_len):
        """The angle p / 10000^(2i/d) of every position p and every pair i of dimensions.

        Parameters
        ----------
        seq_len : int
            The sequence length T.

        Returns
        -------
        numpy.ndarray, shape=(T, ceil(d / 2)), dtype=float32
            Row p holds the angles of position p = 0, 1, ..., T - 1.
        """
        ### BEGIN SOLUTION
        position = np.arange(seq_len, dtype=np.float32)[:, None]  # (T, 1)
        even = np.arange(0, self.dim, 2, dtype=np.float32)  # 2i = 0, 2, 4, ...
        return position * np.float32(10000) ** (-even / np.float32(self.dim))
        ### END SOLUTION

    def __call__(self, seq_len):
        """The encoding of positions 0, 1, ..., seq_len - 1, made from ``self.angles(seq_len)``.

        Parameters
        ----------
        seq_len : int
            The sequence length T.

        Returns
        -------
        numpy.ndarray, shape=(T, 1, d), dtype=float32
        """
        ### BEGIN SOLUTION
        angle = self.angles(seq_len)  # (T, ceil(d / 2))
        encoding = np.empty((seq_len, self.dim), dtype=np.float32)
        encoding[:, 0::2] = np.sin(angle)
        encoding[:, 1::2] = np.cos(angle[:, : self.dim // 2])
        return encoding[:, None, :]
        ### END SOLUTION


# %%
print(np.round(PositionalEncoder(4)(3)[:, 0], 3))  # rows: position 0, 1, 2; expect the numbers worked out above
try:
    odd = PositionalEncoder(5)(3)  # an odd width: the last dimension is a sine alone
except ValueError as err:
    print(f"warning: your encoding fails for an odd width d = 5 ({err}): the sines take all ceil(d / 2) angles, "
          "the cosines only the first d // 2")
else:
    if odd.shape != (3, 1, 5):
        print(f"warning: for d = 5 the encoding has shape {odd.shape}, expected (T, 1, d) = (3, 1, 5)")

# %% course={"task": "positional_encoding"} nbgrader={"grade": true, "grade_id": "positional_encoding__values", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check the encoding at positions 0, 1 and 2 for d = 4, as worked out by hand.
pe = PositionalEncoder(4)(3)
assert pe.shape == (3, 1, 4), f"shape {pe.shape}, expected (T, 1, d) = (3, 1, 4)"
assert pe.dtype == np.float32, f"dtype {pe.dtype}, expected float32"
assert not np.allclose(pe[0, 0], [1, 0, 1, 0], atol=1e-6), (
    "position 0 is (1, 0, 1, 0): sines and cosines are swapped; the even dimensions 0, 2, ... hold the sines"
)
assert np.allclose(pe[0, 0], [0, 1, 0, 1], atol=1e-6), f"position 0 is {np.round(pe[0, 0], 3)}, expected (0, 1, 0, 1): count positions from 0"
assert not np.isclose(pe[1, 0, 2], np.sin(1 / 10000 ** (1 / 4)), atol=1e-6), (
    "dimension 2 at position 1 is sin(1 / 10000^(1/4)): the exponent is 2i/d with 2i = 2 the index of the "
    "pair's even dimension, not i/d with the pair's number i = 1"
)
assert not np.isclose(pe[1, 0, 2], np.sin(1 / 1000 ** (2 / 4)), atol=1e-6), (
    "dimension 2 at position 1 is sin(1 / 1000^(2/4)): the base of the rates is 10000, not 1000"
)
assert not np.isclose(pe[1, 0, 2], np.sin(10000 ** (2 / 4)), atol=1e-5), (
    "dimension 2 at position 1 is sin(1 * 10000^(2/4)): divide the position by 10000^(2i/d), do not multiply"
)
want = np.array([[np.sin(p), np.cos(p), np.sin(p / 100), np.cos(p / 100)] for p in (1, 2)])
assert np.allclose(pe[1:, 0], want, atol=1e-6), f"positions 1 and 2 are\n{np.round(pe[1:, 0], 3)}\nexpected\n{np.round(want, 3)}"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("positional_encoding__values")  # this submission's own inputs
d, T = 2 * int(rng.integers(3, 17)), int(rng.integers(3, 50))  # an even width other than the visible 4
want6 = np.zeros((T, d))
for pos in range(T):
    for j in range(d):
        angle = pos / 10000 ** ((j - j % 2) / d)
        want6[pos, j] = np.sin(angle) if j % 2 == 0 else np.cos(angle)
pe_shape = (T, 1, d)
pe6 = PositionalEncoder(d)(T)
assert pe6.shape == pe_shape, f"another width: the encoding has shape {pe6.shape}, expected (T, 1, d)"
assert np.allclose(pe6[:, 0], want6, atol=1e-4), "another width: the encoding differs from the formula"
### END HIDDEN TESTS

# %% course={"task": "positional_encoding"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "positional_encoding__odd_width", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check an odd width, where the last dimension is a sine without a cosine partner, the angles, and a subclass's angles.
try:
    pe = PositionalEncoder(5)(25)
    error = None
except ValueError as err:  # numpy's words when the sines and cosines do not fit their columns
    pe, error = None, str(err)
assert error is None, (
    f"PositionalEncoder(5)(25) raised ValueError: {error}: for an odd d, the cosines take only the first d // 2 angles"
)
assert pe.shape == (25, 1, 5) and pe.dtype == np.float32, f"shape {pe.shape} and dtype {pe.dtype}, expected (25, 1, 5) float32"
p = np.arange(25)
assert np.allclose(pe[:, 0, 3], np.cos(p / 10000 ** (2 / 5)), atol=1e-5), "d = 5: dimension 3 should be the cosine of pair 1"
assert np.allclose(pe[:, 0, 4], np.sin(p / 10000 ** (4 / 5)), atol=1e-5), "d = 5: dimension 4 should be the sine of pair 2, with no cosine after it"
angles = PositionalEncoder(5).angles(25)
assert angles.shape == (25, 3), f"angles(25) for d = 5 has shape {angles.shape}, expected (T, ceil(d / 2)) = (25, 3)"
assert angles.dtype == np.float32, f"angles has dtype {angles.dtype}, expected float32"


class Halved(PositionalEncoder):
    """A variant that halves every angle, as QuarterTurnEncoder below scales them."""

    def angles(self, seq_len):
        return super().angles(seq_len) / np.float32(2)


halved = Halved(4)(3)
want_halved = np.array([[np.sin(p / 2), np.cos(p / 2), np.sin(p / 200), np.cos(p / 200)] for p in (0, 1, 2)])
assert halved.shape == (3, 1, 4), f"Halved(4)(3) has shape {halved.shape}, expected (T, 1, d) = (3, 1, 4)"
assert np.allclose(halved[:, 0], want_halved, atol=1e-5), (
    "a subclass that halves the angles did not change the encoding: __call__ should take its angles from self.angles"
)
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("positional_encoding__odd_width")  # this submission's own inputs
d, T = 2 * int(rng.integers(3, 21)) + 1, int(rng.integers(10, 60))  # an odd width other than the visible 5
want = np.zeros((T, d))
for pos in range(T):
    for j in range(d):
        angle = pos / 10000 ** ((j - j % 2) / d)
        want[pos, j] = np.sin(angle) if j % 2 == 0 else np.cos(angle)
want_angles = np.arange(T)[:, None] / 10000 ** (np.arange(0, d, 2) / d)
got_shape, angles_shape = (T, 1, d), (T, (d + 1) // 2)
# a subclass whose angles are the test's own
d2, T2 = int(rng.integers(2, 12)), int(rng.integers(2, 8))
own_angles = rng.uniform(-4, 4, size=(T2, (d2 + 1) // 2)).astype(np.float32)
want_frozen = np.zeros((T2, d2))
want_frozen[:, 0::2], want_frozen[:, 1::2] = np.sin(own_angles), np.cos(own_angles[:, : d2 // 2])
frozen_shape = (T2, 1, d2)
got = PositionalEncoder(d)(T)
angles = PositionalEncoder(d).angles(T)
assert angles.shape == angles_shape, f"for an odd width, angles(T) has shape {angles.shape}, expected one row per position and one column per pair of dimensions, the last pair a sine alone"
assert got.shape == got_shape and got.dtype == np.float32, f"for an odd width: shape {got.shape}, dtype {got.dtype}, expected (T, 1, d) float32"
assert np.allclose(got[:, 0], want, atol=1e-4), (
    "for an odd width, the encoding differs from the formula: check the base, the exponent (twice i over d) and positions from 0"
)
assert np.allclose(angles, want_angles, atol=1e-4), (
    "angles(T) should hold the formula's angles, position over the base to the power (twice i over d), one column per pair of dimensions"
)


class Frozen(PositionalEncoder):
    def angles(self, seq_len):
        return own_angles[:seq_len].copy()


frozen = Frozen(d2)(T2)
assert frozen.shape == frozen_shape, f"a subclass with its own angles: shape {frozen.shape}, expected (T, 1, d): build the encoding from self.angles"
assert np.allclose(frozen[:, 0], want_frozen, atol=1e-5), (
    "__call__ should take its angles from self.angles, so that a subclass that changes the angles changes the encoding"
)
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "quarter_turn_text", "locked": true, "schema_version": 3, "solution": false}
# ### A variant made for this cipher
#
# The standard pairs turn one radian per position or less, so their periods are $2\pi \approx 6.3$ positions or longer, and none is 4, the key's length. Multiply every rate by $\pi/2$ and the fastest pair makes a quarter turn per position, coming back every 4 positions exactly:
#
# $$\omega_i = \frac{\pi/2}{10000^{2i/d}}, \qquad (\sin, \cos)(\omega_0\, p) = (0, 1),\ (1, 0),\ (0, -1),\ (-1, 0) \ \text{ for } p \bmod 4 = 0, 1, 2, 3 .$$
#
# This suits a key of 4 symbols; a key of unknown length would want several short periods (exercise 6). The variant below is a subclass of your `PositionalEncoder` that scales its angles; "Standard or quarter turn?", after the training, measures what it buys.

# %% nbgrader={"grade": false, "grade_id": "quarter_turn", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
QUARTER_TURN = np.float32(np.pi / 2)  # radians per position of the fastest pair: period 4


class QuarterTurnEncoder(PositionalEncoder):
    """The sinusoidal encoding with every rate scaled by pi/2: its fastest pair repeats every 4 positions."""

    def angles(self, seq_len):
        return QUARTER_TURN * super().angles(seq_len)


# %% [markdown] nbgrader={"grade": false, "grade_id": "positional_encoding_picture_text", "locked": true, "schema_version": 3, "solution": false}
# Both encodings at d = 29 over 49 positions (the longest training message and `END`). Along a row (a position) the stripes slow down from left to right; no two rows are the same. On the right, the first two columns repeat every 4 rows.

# %%
show_encodings({
    f"standard, d = {N_SYMBOLS}": PositionalEncoder(N_SYMBOLS)(MAX_LENGTH + 1),
    f"quarter turn, d = {N_SYMBOLS}": QuarterTurnEncoder(N_SYMBOLS)(MAX_LENGTH + 1),
})


# %% [markdown] nbgrader={"grade": false, "grade_id": "transformer_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part I: the Transformer (4 points)
#
# ![The Transformer of the top of the notebook, built from your parts: encoder stack, decoder stack reading E, output layer](figures/transformer.svg)
#
# *Figure: the model from the top of the notebook, now built from your parts: $PE$ added at the bottom of both stacks, the layers of Parts F and G stacked, the last encoder output $E$ fed to every decoder layer, and `out_dense` on top (the formula below, read bottom to top).*
#
# $$E = \operatorname{Enc}_{n}\big(\cdots \operatorname{Enc}_{1}(\text{src} + PE)\big), \qquad \text{scores} = \operatorname{Dense}\Big(\operatorname{Dec}_{m}\big(E,\ \cdots \operatorname{Dec}_{1}(E,\ \text{tgt} + PE)\big)\Big).$$
#
# `out_dense` turns each decoder vector into 29 scores, one per token: a MyNN `dense` layer from d to d with `weight_initializer=glorot_normal` and a bias, which starts at zero.

# %% [markdown] nbgrader={"grade": false, "grade_id": "transformer_task_text", "locked": true, "schema_version": 3, "solution": false}
# The forward pass comes in two halves: when decrypting, `encode` runs once per message and `decode` once per symbol. Each builds the masks of Part D once for all its layers: `encode(src, lengths)` gives every encoder layer `padding_mask(lengths, T, T)`; `decode(enc_out, tgt, src_lengths, tgt_lengths)` gives every decoder layer `causal_mask(tgt_lengths, t)` and `padding_mask(src_lengths, t, T)`. Lengths of `None` mean no padding. Source and decoder lengths are equal here; keep them apart all the same, as a translation model must.
#
# Write `__init__` (with `pos_enc = PositionalEncoder(dim)`), `encode`, `decode` and `parameters` (every learnable tensor once, as a tuple), which `save` and `load` (from `SaveLoad`, below) read and write in order. The tests put stand-ins into `pos_enc`, `enc_layers`, `dec_layers` and `out_dense`: use those attributes, calling each layer as Parts F and G define it.

# %% nbgrader={"grade": false, "grade_id": "save_load", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
class SaveLoad:
    """Gives a model with a ``parameters`` tuple the methods ``save`` and ``load`` (.npz files)."""

    def save(self, path):
        """Write the weights of this model to an .npz file, in the order of ``parameters``."""
        np.savez(path, *(np.asarray(p.data) for p in self.parameters))

    def load(self, path):
        """Read weights written by ``save`` into this model.

        Raises
        ------
        ValueError
            If the file holds the weights of a model of another size.
        """
        with np.load(path) as saved:
            arrays = [saved[f"arr_{i}"] for i in range(len(saved.files))]
        params = self.parameters
        if len(arrays) != len(params):
            raise ValueError(
                f"{path} holds {len(arrays)} weight arrays, but this model has {len(params)} parameters."
            )
        for i, (param, array) in enumerate(zip(params, arrays)):
            if array.shape != param.shape:
                raise ValueError(
                    f"{path} does not fit this model: "
                    f"weight {i} has shape {array.shape} there and {param.shape} here."
                )
        for param, array in zip(params, arrays):
            param.data = array.astype(param.dtype)


# %% nbgrader={"grade": false, "grade_id": "transformer", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
class Transformer(SaveLoad):
    """An encoder-decoder Transformer on one-hot tokens (``save`` and ``load`` come from ``SaveLoad``).

    Attributes
    ----------
    pos_enc : PositionalEncoder
    enc_layers : list of TransformerEncoder
    dec_layers : list of TransformerDecoder
    out_dense : mynn.layers.dense.dense
        d -> d, ``glorot_normal`` weights and a bias that starts at zero:
        turns each decoder output into one score per token.
    """

    def __init__(self, dim, h_dim, n_enc, n_dec, n_head=3):
        """
        Parameters
        ----------
        dim : int
            The model width d (here the number of tokens).
        h_dim : int
            The hidden units of every feed-forward network.
        n_enc, n_dec : int
            The numbers of encoder and decoder layers.
        n_head : int
            The number of heads of every attention.
        """
        ### BEGIN SOLUTION
        self.pos_enc = PositionalEncoder(dim)
        self.enc_layers = [TransformerEncoder(dim, h_dim, n_head=n_head) for _ in range(n_enc)]
        self.dec_layers = [TransformerDecoder(dim, h_dim, n_head=n_head) for _ in range(n_dec)]
        self.out_dense = dense(dim, dim, weight_initializer=glorot_normal)
        ### END SOLUTION

    def encode(self, src, lengths=None):
        """Run the encoder stack.

        Parameters
        ----------
        src : array_like, shape=(T, N, d)
        lengths : Optional[array_like of int], shape=(N,)
            The real positions of each source sequence; None means no padding.

        Returns
        -------
        mygrad.Tensor, shape=(T, N, d)
        """
        ### BEGIN SOLUTION
        T, N = src.shape[:2]
        lengths = np.full(N, T) if lengths is None else lengths
        mask = padding_mask(lengths, T, T)
        x = src + self.pos_enc(T)
        for layer in self.enc_layers:
            x = layer(x, mask)
        return x
        ### END SOLUTION

    def decode(self, enc_out, tgt, src_lengths=None, tgt_lengths=None):
        """Run the decoder stack and the output layer.

        Parameters
        ----------
        enc_out : array_like, shape=(T, N, d)
            The output of ``encode``.
        tgt : array_like, shape=(t, N, d)
            The decoder input.
        src_lengths, tgt_lengths : Optional[array_like of int], shape=(N,)
            The real positions of each source and each decoder input; None means no padding.

        Returns
        -------
        mygrad.Tensor, shape=(t, N, d)
            A score for every token at every position.
        """
        ### BEGIN SOLUTION
        (T, N), t = enc_out.shape[:2], tgt.shape[0]
        src_lengths = np.full(N, T) if src_lengths is None else src_lengths
        tgt_lengths = np.full(N, t) if tgt_lengths is None else tgt_lengths
        self_mask, cross_mask = causal_mask(tgt_lengths, t), padding_mask(src_lengths, t, T)
        y = tgt + self.pos_enc(t)
        for layer in self.dec_layers:
            y = layer(enc_out, y, self_mask, cross_mask)
        return self.out_dense(y)
        ### END SOLUTION

    def __call__(self, src, tgt, src_lengths=None, tgt_lengths=None):
        """The scores (t, N, d) for decoder input ``tgt`` (t, N, d) given source ``src`` (T, N, d)."""
        return self.decode(self.encode(src, src_lengths), tgt, src_lengths, tgt_lengths)

    @property
    def parameters(self):
        """All learnable tensors of the model, as a tuple."""
        ### BEGIN SOLUTION
        layers = [*self.enc_layers, *self.dec_layers, self.out_dense]
        return tuple(p for layer in layers for p in layer.parameters)
        ### END SOLUTION


# %%
model = Transformer(N_SYMBOLS, 30, n_enc=2, n_dec=2, n_head=4)
source, decoder_input, target, lengths = make_batch(sample_messages(np.random.default_rng(1), train_texts, 3))
scores = model(source, decoder_input, lengths, lengths)
print(scores.shape, scores.dtype, len(model.parameters), "parameter tensors")  # (T, 3, 29) float32 62

# %% course={"task": "transformer"} nbgrader={"grade": true, "grade_id": "transformer__forward", "locked": true, "points": 2, "schema_version": 3, "solution": false}
# Check that the Transformer chains positional encoding, encoder layers, decoder layers and the output layer.
# The test puts stand-ins into your model (layers whose outputs it knows), so only Part I's wiring counts here.
model = Transformer(dim=4, h_dim=6, n_enc=2, n_dec=2, n_head=2)
pos_enc_class = type(model.pos_enc).__name__
n_enc, n_dec = len(model.enc_layers), len(model.dec_layers)
out_weight, out_bias = model.out_dense.weight, model.out_dense.bias
assert pos_enc_class == "PositionalEncoder", f"pos_enc is a {pos_enc_class}, expected a PositionalEncoder"
assert n_enc == 2 and n_dec == 2, f"{n_enc} encoder and {n_dec} decoder layers, expected n_enc = n_dec = 2"
assert out_weight.shape == (4, 4), f"out_dense.weight has shape {out_weight.shape}: the output layer maps d -> d"
assert out_bias is not None and np.all(out_bias.data == 0), "out_dense.bias should exist and start at 0"


class StandInEncoding:
    """A positional encoding the test knows: position p adds (p + 1) / 10 times a fixed vector."""

    def __call__(self, seq_len):
        return ((np.arange(seq_len)[:, None, None] + 1) / 10 * np.array([1, -1, 2, 0.5])).astype(np.float32)


def average(values, mask):
    """The mean of the values (T, N, d) that each query may read under ``mask`` (t, N, T)."""
    weights = np.asarray(mask) / np.asarray(mask).sum(axis=-1, keepdims=True)
    return mg.einsum("tNT,TNd->tNd", weights.astype(np.float32), values)


class StandInEncoderLayer:
    """Scales its input and adds the mean of the positions the mask lets it read."""

    def __init__(self, scale):
        self.scale = np.float32(scale)

    def __call__(self, src, mask=None):
        T, N = src.shape[:2]
        mask = np.ones((T, N, T), dtype=bool) if mask is None else mask
        return self.scale * src + average(src, mask)


class StandInDecoderLayer:
    """Scales its input and adds the means of its earlier positions and of the encoder output it may read."""

    def __init__(self, scale):
        self.scale = np.float32(scale)

    def __call__(self, enc_out, tgt, self_mask=None, cross_mask=None):
        (t, N), T = tgt.shape[:2], enc_out.shape[0]
        self_mask = np.tril(np.ones((t, t), dtype=bool))[:, None].repeat(N, axis=1) if self_mask is None else self_mask
        cross_mask = np.ones((t, N, T), dtype=bool) if cross_mask is None else cross_mask
        return self.scale * tgt + average(tgt, self_mask) - average(enc_out, cross_mask)


own_masks = [padding_mask(np.full(2, 4), 4, 4), padding_mask(np.full(2, 4), 3, 4), causal_mask(np.full(2, 3), 3)]
causal = np.broadcast_to(np.tril(np.ones((3, 3), dtype=bool))[:, None, :], (3, 2, 3))
assert all(np.array_equal(got, want) for got, want in zip(own_masks, [np.ones((4, 2, 4)), np.ones((3, 2, 4)), causal])), (
    "the Transformer builds its masks with your padding_mask and causal_mask, which give wrong masks for unpadded "
    "sequences: fix them (Part D) first"
)
rng = np.random.default_rng(8)
model.pos_enc = StandInEncoding()
model.enc_layers = [StandInEncoderLayer(0.5), StandInEncoderLayer(-2)]
model.dec_layers = [StandInDecoderLayer(1.5), StandInDecoderLayer(-0.5)]
model.out_dense.weight = mg.tensor(rng.normal(size=(4, 4)).astype(np.float32))
model.out_dense.bias = mg.tensor(rng.normal(size=(1, 4)).astype(np.float32))
src = rng.normal(size=(4, 2, 4)).astype(np.float32)  # T = 4, N = 2
tgt = rng.normal(size=(3, 2, 4)).astype(np.float32)  # t = 3
scores = model(src.copy(), tgt.copy())
assert scores.shape == (3, 2, 4) and scores.dtype == np.float32, f"scores {scores.shape} {scores.dtype}, expected (3, 2, 4) float32"
tgt_without_position = np.array([
    [5.6107, 3.5632, 3.4594, -2.0063],
    [5.6107, 3.5632, 3.4594, -2.0063],
    [5.1915, 2.7118, 3.0564, -2.2092],
])
assert not np.allclose(scores.data[:, 0], tgt_without_position, atol=2e-4), (
    "the decoder input got no positional encoding: add pos_enc(t) to tgt as pos_enc(T) is added to src"
)
not_chained = np.array([
    [6.9391, 5.1416, 3.9293, -1.8858],
    [6.9391, 5.1416, 3.9293, -1.8858],
    [6.5198, 4.2902, 3.5263, -2.0887],
])
reads_itself = np.array([
    [-5.3881, -2.3165, -4.1398, 0.3475],
    [-2.2728, 0.2611, -2.2281, 0.5634],
    [-0.1866, 0.7489, -1.3056, 0.2814],
])
assert not np.allclose(scores.data[:, 0], not_chained, atol=2e-4), (
    "every encoder layer read src + PE: chain them, each reading the previous layer's output, and hand the last one's on"
)
assert not np.allclose(scores.data[:, 0], reads_itself, atol=2e-4), (
    "the decoder layers read their own input where the encoder output E belongs: give every decoder layer E"
)
short_cross = np.array([
    [3.8771, 1.177, 3.1291, -2.3624],
    [3.8771, 1.177, 3.1291, -2.3624],
    [3.4578, 0.3256, 2.7261, -2.5652],
])
assert not np.allclose(scores.data[:, 0], short_cross, atol=2e-4), (
    "the cross-attention could not read source positions t and later: build its mask, padding_mask(src_lengths, t, T), "
    "from the source's lengths (T each when None), not the decoder's"
)
want = np.array([
    [[5.9755, 3.8619, 3.56, -2.1371], [-7.8672, 0.3229, -5.3595, 1.7766]],
    [[5.9755, 3.8619, 3.56, -2.1371], [-7.8672, 0.3229, -5.3595, 1.7766]],
    [[5.5562, 3.0105, 3.1569, -2.3399], [-6.2903, -1.5488, -4.9693, -0.1265]],
])
assert np.allclose(scores.data, want, atol=2e-4), (
    f"with the test's stand-in layers, sequence 0's scores are\n{np.round(scores.data[:, 0], 3)}\n"
    f"expected\n{np.round(want[:, 0], 3)}: src + PE through every encoder layer in turn, tgt + PE through every "
    "decoder layer in turn, each reading the last encoder output, then out_dense"
)
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng


class DrawnEncoding:
    """A positional encoding the test knows: position p adds (p + 1) / 10 times the vector it is given."""

    def __init__(self, vector):
        self.vector = vector

    def __call__(self, seq_len):
        return ((np.arange(seq_len)[:, None, None] + 1) / 10 * self.vector).astype(np.float32)


def reference_encode(src, scales, vector):
    """encode written out in NumPy on the stand-ins, without padding."""
    x = src + (np.arange(len(src))[:, None, None] + 1) / 10 * vector
    for scale in scales:
        x = scale * x + x.mean(axis=0, keepdims=True)
    return x


def reference_decode(E, tgt, scales, vector, W, b):
    """decode written out in NumPy on the stand-ins, without padding: each position reads itself and earlier ones."""
    t = len(tgt)
    y = tgt + (np.arange(t)[:, None, None] + 1) / 10 * vector
    for scale in scales:
        y = scale * y + np.cumsum(y, axis=0) / np.arange(1, t + 1)[:, None, None] - E.mean(axis=0, keepdims=True)
    return y @ W + b


rng = hidden_rng("transformer__forward")  # this submission's own inputs, none of the visible ones
d, t, N = int(rng.integers(3, 9)), int(rng.integers(2, 7)), int(rng.integers(1, 4))
T = t + int(rng.integers(1, 4))  # a longer source: a cross mask built from the decoder's length would hide some of it
n_enc, n_dec, h_dim, h = int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(2, 9)), int(rng.integers(1, 4))
vector = rng.uniform(-2, 2, size=d).astype(np.float32)
enc_scales = [round(float(s), 2) for s in rng.choice([-1, 1], size=n_enc) * rng.uniform(0.5, 2, size=n_enc)]
dec_scales = [round(float(s), 2) for s in rng.choice([-1, 1], size=n_dec) * rng.uniform(0.5, 1.5, size=n_dec)]
W, b = rng.normal(size=(d, d)).astype(np.float32), rng.normal(size=(1, d)).astype(np.float32)
src = rng.normal(size=(T, N, d)).astype(np.float32)
tgt = rng.normal(size=(t, N, d)).astype(np.float32)
given_E = rng.normal(size=(T, N, d)).astype(np.float32)  # an encoder output the test chooses
want_E = reference_encode(src, enc_scales, vector)
want_decoded = reference_decode(given_E, tgt, dec_scales, vector, W, b)
want_scores = reference_decode(want_E, tgt, dec_scales, vector, W, b)
counts, classes = [n_enc, n_dec], ["TransformerEncoder", "TransformerDecoder"]
model = Transformer(dim=d, h_dim=h_dim, n_enc=n_enc, n_dec=n_dec, n_head=h)
n_layers = [len(model.enc_layers), len(model.dec_layers)]
layer_classes = [type(model.enc_layers[0]).__name__, type(model.dec_layers[0]).__name__]
model.pos_enc = DrawnEncoding(vector.copy())
model.enc_layers = [StandInEncoderLayer(scale) for scale in enc_scales]
model.dec_layers = [StandInDecoderLayer(scale) for scale in dec_scales]
model.out_dense.weight, model.out_dense.bias = mg.tensor(W), mg.tensor(b)
encoded = model.encode(src.copy())
decoded = model.decode(mg.tensor(given_E), tgt.copy())
scores = model(src.copy(), tgt.copy())
assert n_layers == counts, "n_enc and n_dec set the numbers of encoder and decoder layers"
assert layer_classes == classes, (
    f"the layers are {layer_classes[0]} and {layer_classes[1]}, expected TransformerEncoder and TransformerDecoder"
)
assert encoded.shape == want_E.shape, f"encode gave shape {encoded.shape}, expected (T, N, d), the shape of src"
assert decoded.shape == want_decoded.shape, f"decode gave shape {decoded.shape}, expected (t, N, d), the shape of tgt"
assert np.allclose(encoded.data, want_E, rtol=1e-4, atol=2e-4), "encode should add pos_enc(T) and run every encoder layer in turn"
assert np.allclose(decoded.data, want_decoded, rtol=1e-4, atol=2e-4), (
    "decode should add pos_enc(t), run every decoder layer on the encoder output it is given, then out_dense"
)
assert scores.shape == want_scores.shape, f"scores of shape {scores.shape}, expected (t, N, d)"
assert np.allclose(scores.data, want_scores, rtol=1e-4, atol=2e-4), (
    "other sizes and numbers of layers, with the test's stand-ins: the scores differ from src + PE through every "
    "encoder layer, tgt + PE through every decoder layer reading the last encoder output, then out_dense"
)
### END HIDDEN TESTS

# %% course={"task": "transformer"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "transformer__parameters", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that parameters lists every learnable tensor once, so that save and load restore the model.
# The test's stand-in layers take the place of yours (each lists two tensors the test numbered), so only Part I counts.
import tempfile
from pathlib import Path


class StandInLayer:
    """Stands in for an encoder or decoder layer: its parameters are two tensors holding the numbers it is given."""

    def __init__(self, first):
        self.parameters = (mg.tensor(np.full((2, 3), first, dtype=np.float32)), mg.tensor(np.full(3, first + 1, dtype=np.float32)))


def with_stand_ins(model, numbers):
    """Put stand-in layers numbered from ``numbers`` into ``model``, and a numbered output layer."""
    model.enc_layers = [StandInLayer(numbers[2]), StandInLayer(numbers[4])]
    model.dec_layers = [StandInLayer(numbers[6])]
    model.out_dense.weight = mg.tensor(np.full((8, 8), numbers[0], dtype=np.float32))
    model.out_dense.bias = mg.tensor(np.full((1, 8), numbers[1], dtype=np.float32))
    return model


model = with_stand_ins(Transformer(dim=8, h_dim=12, n_enc=2, n_dec=1, n_head=2), list(range(8)))
params = model.parameters
labels = sorted(int(p.data.flat[0]) for p in params)  # the number each listed tensor holds
params_type = type(params).__name__
assert params_type == "tuple", f"parameters should be a tuple, not {params_type}"
assert labels == list(range(8)), (
    f"parameters holds the tensors numbered {labels}: each of the 8 (the output layer's weight 0 and bias 1 "
    "included, then two for each stand-in layer) should be there once"
)
other = with_stand_ins(Transformer(dim=8, h_dim=12, n_enc=2, n_dec=1, n_head=2), [-1] * 8)
with tempfile.TemporaryDirectory() as folder:
    model.save(Path(folder) / "weights.npz")
    other.load(Path(folder) / "weights.npz")
restored = [float(np.mean(p.data)) for p in other.parameters]
out_weight = other.out_dense.weight.data
assert sorted(restored) == list(range(8)), "after save and load, the other model's parameters hold other values"
assert np.all(out_weight == 0), "after save and load, the output layer's weight is not the saved one"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("transformer__parameters")  # this submission's own inputs
n_enc, n_dec, d, h = int(rng.integers(1, 5)), int(rng.integers(1, 5)), int(rng.integers(3, 10)), int(rng.integers(1, 4))
starts = [2 * int(k) for k in rng.permutation(n_enc + n_dec + 1)]  # each part's two numbers, in a drawn order
enc_starts, dec_starts, out_start = starts[:n_enc], starts[n_enc:-1], starts[-1]
out_weight, out_bias = np.full((d, d), out_start, dtype=np.float32), np.full((1, d), out_start + 1, dtype=np.float32)
wanted_labels, h_dim = list(range(2 * (n_enc + n_dec + 1))), int(rng.integers(2, 9))
deep = Transformer(dim=d, h_dim=h_dim, n_enc=n_enc, n_dec=n_dec, n_head=h)
deep.enc_layers = [StandInLayer(k) for k in enc_starts]
deep.dec_layers = [StandInLayer(k) for k in dec_starts]
deep.out_dense.weight = mg.tensor(out_weight)
deep.out_dense.bias = mg.tensor(out_bias)
deep_labels = sorted(int(p.data.flat[0]) for p in deep.parameters)
assert deep_labels == wanted_labels, "with other numbers of layers, parameters should list every layer's tensors once"
### END HIDDEN TESTS


# %% course={"task": "transformer"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "transformer__padding", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that, given the lengths, the scores at real positions do not change when the padding grows.
# As in the check above, the test's stand-in layers take the place of yours; they read only what the masks allow.
class StandInEncoding:
    """A positional encoding the test knows: position p adds (p + 1) / 10 times a fixed vector."""

    def __call__(self, seq_len):
        return ((np.arange(seq_len)[:, None, None] + 1) / 10 * np.array([1, -1, 2, 0.5])).astype(np.float32)


def average(values, mask):
    """The mean of the values (T, N, d) that each query may read under ``mask`` (t, N, T)."""
    weights = np.asarray(mask) / np.asarray(mask).sum(axis=-1, keepdims=True)
    return mg.einsum("tNT,TNd->tNd", weights.astype(np.float32), values)


class StandInEncoderLayer:
    def __call__(self, src, mask=None):
        T, N = src.shape[:2]
        return -src + average(src, np.ones((T, N, T), dtype=bool) if mask is None else mask)


class StandInDecoderLayer:
    def __call__(self, enc_out, tgt, self_mask=None, cross_mask=None):
        (t, N), T = tgt.shape[:2], enc_out.shape[0]
        self_mask = np.tril(np.ones((t, t), dtype=bool))[:, None].repeat(N, axis=1) if self_mask is None else self_mask
        cross_mask = np.ones((t, N, T), dtype=bool) if cross_mask is None else cross_mask
        return tgt + average(tgt, self_mask) - 2 * average(enc_out, cross_mask)


try:
    own_masks = [padding_mask([4], 5, 5), causal_mask([3], 6), padding_mask([4], 6, 5)]
except (TypeError, IndexError, AttributeError, ValueError):  # masks that need an array of lengths
    own_masks = []
key_is_real = np.array([True] * 4 + [False])
wanted_masks = [
    np.broadcast_to(key_is_real, (5, 1, 5)),
    np.tril(np.ones((6, 6), dtype=bool))[:, None, :] & (np.arange(6) < 3),
    np.broadcast_to(key_is_real, (6, 1, 5)),
]
assert len(own_masks) == 3 and all(np.array_equal(got, want) for got, want in zip(own_masks, wanted_masks)), (
    "the Transformer builds its masks with your padding_mask and causal_mask, which give wrong masks for these "
    "lengths (a list [4] and [3] here): fix them (Part D) first"
)
rng = np.random.default_rng(17)
model = Transformer(dim=4, h_dim=6, n_enc=2, n_dec=2, n_head=2)
model.pos_enc = StandInEncoding()
model.enc_layers, model.dec_layers = [StandInEncoderLayer()], [StandInDecoderLayer(), StandInDecoderLayer()]
model.out_dense.weight = mg.tensor(rng.normal(size=(4, 4)).astype(np.float32))
src, tgt = rng.normal(size=(4, 1, 4)).astype(np.float32), rng.normal(size=(3, 1, 4)).astype(np.float32)
alone = model(src.copy(), tgt.copy()).data  # one sequence: 4 source and 3 decoder positions, no padding
want = np.array([
    [[9.2484, 4.2468, -0.7386, -9.5173]],
    [[2.0491, 4.0645, 4.6001, -5.5716]],
    [[11.3647, 3.5982, 3.4536, -0.3985]],
])
assert alone.shape == (3, 1, 4), f"scores of shape {alone.shape}, expected (t, N, d) = (3, 1, 4)"
assert np.allclose(alone, want, atol=2e-4), f"with the stand-in layers, the scores are\n{np.round(alone[:, 0], 3)}\nexpected\n{np.round(want[:, 0], 3)}"
padded = [
    (np.concatenate([src, rng.normal(size=(pad, 1, 4)).astype(np.float32)]),
     np.concatenate([tgt, rng.normal(size=(pad + 2, 1, 4)).astype(np.float32)]))
    for pad in (1, 5)
]
padded_scores = [model(src_p.copy(), tgt_p.copy(), [4], [3]).data for src_p, tgt_p in padded]
for pad, scores in zip((1, 5), padded_scores):
    assert scores.shape == (3 + pad + 2, 1, 4), f"scores of shape {scores.shape}, expected (t, N, d) = {(3 + pad + 2, 1, 4)}"
    assert np.allclose(scores[:3], want, atol=2e-4), (
        f"padding of {pad} source positions changed the real scores: build the masks from src_lengths and tgt_lengths"
    )
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng


def reference(src, tgt, n_dec, W, b):
    """One unpadded sequence through the stand-ins above, in NumPy: the encoder output and the scores."""
    vector = np.array([1, -1, 2, 0.5])
    x = src + (np.arange(len(src))[:, None, None] + 1) / 10 * vector
    x = -x + x.mean(axis=0, keepdims=True)  # the stand-in encoder layer
    t = len(tgt)
    y = tgt + (np.arange(t)[:, None, None] + 1) / 10 * vector
    for _ in range(n_dec):
        y = y + np.cumsum(y, axis=0) / np.arange(1, t + 1)[:, None, None] - 2 * x.mean(axis=0, keepdims=True)
    return x, y @ W + b


rng = hidden_rng("transformer__padding")  # this submission's own inputs, none of the visible ones
# a batch whose sequences have source and decoder lengths of their own; sequence `longest` fills both
N, T, t = int(rng.integers(2, 5)), int(rng.integers(3, 9)), int(rng.integers(3, 9))
longest, n_dec = int(rng.integers(0, N)), int(rng.integers(1, 4))
src_lengths, tgt_lengths = rng.integers(1, T, size=N), rng.integers(1, t, size=N)
src_lengths[longest], tgt_lengths[longest] = T, t
W, b = rng.normal(size=(4, 4)).astype(np.float32), rng.normal(size=(1, 4)).astype(np.float32)
batch_src = rng.normal(size=(T, N, 4)).astype(np.float32)  # what lies past each length is padding
batch_tgt = rng.normal(size=(t, N, 4)).astype(np.float32)
alone = [reference(batch_src[:S, n : n + 1], batch_tgt[:L, n : n + 1], n_dec, W, b)
         for n, (S, L) in enumerate(zip(src_lengths, tgt_lengths))]
reals = [(int(S), int(L)) for S, L in zip(src_lengths, tgt_lengths)]
scores_shape, enc_shape = (t, N, 4), (T, N, 4)
model = Transformer(dim=4, h_dim=6, n_enc=1, n_dec=n_dec, n_head=2)
model.pos_enc = StandInEncoding()
model.enc_layers, model.dec_layers = [StandInEncoderLayer()], [StandInDecoderLayer() for _ in range(n_dec)]
model.out_dense.weight, model.out_dense.bias = mg.tensor(W), mg.tensor(b)
scores = model(batch_src.copy(), batch_tgt.copy(), src_lengths.copy(), tgt_lengths.copy()).data
enc = model.encode(batch_src.copy(), src_lengths.copy()).data
assert scores.shape == scores_shape, f"scores of shape {scores.shape} for a batch, expected (t, N, d)"
assert enc.shape == enc_shape, f"encode gave shape {enc.shape} for a batch, expected (T, N, d)"
for n, (S, L) in enumerate(reals):
    assert np.allclose(scores[:L, n], alone[n][1][:, 0], rtol=1e-4, atol=2e-4), (
        "in a batch, src_lengths and tgt_lengths should hide each sequence's padding"
    )
    assert np.allclose(enc[:S, n], alone[n][0][:, 0], rtol=1e-4, atol=2e-4), "encode should hide the padding given src lengths"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "loss_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part J: a loss that ignores the padding (2 points)
#
# The loss is softmax cross-entropy over the 29 scores, averaged over the real positions $i < \text{lengths}[n]$, each message's `END` included:
#
# $$\mathcal{L} = \frac{1}{\sum_n \text{lengths}[n]} \sum_{n} \sum_{i < \text{lengths}[n]} -\log \operatorname{softmax}(\text{scores}_{i,n})_{\text{target}_{i,n}} .$$
#
# Padding adds nothing to the loss or its gradient (else the model would spend its effort on filler, and a batch's loss would depend on its padding), and the mean runs over the real positions, not all t·N. A boolean (t, N) array `real` picks them from scores and targets alike: `scores[real]` is (number of real positions, 29), and MyGrad's `softmax_crossentropy` averages over its rows. Write `masked_loss`.

# %% nbgrader={"grade": false, "grade_id": "loss", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
def masked_loss(scores, target, lengths):
    """Softmax cross-entropy averaged over the real positions only.

    Parameters
    ----------
    scores : mygrad.Tensor, shape=(t, N, K)
        The model's scores.
    target : numpy.ndarray, shape=(t, N), dtype=int64
        The tokens to predict (anything at padded positions).
    lengths : array_like of int, shape=(N,)
        The real positions of each column.

    Returns
    -------
    mygrad.Tensor, shape=()
        The mean loss over the ``sum(lengths)`` real positions.
    """
    ### BEGIN SOLUTION
    real = np.arange(target.shape[0])[:, None] < np.asarray(lengths)[None, :]  # (t, N)
    return softmax_crossentropy(scores[real], target[real])
    ### END SOLUTION


# %%
model = Transformer(N_SYMBOLS, 30, n_enc=2, n_dec=2, n_head=4)
source, decoder_input, target, lengths = make_batch(sample_messages(np.random.default_rng(2), train_texts, 3))
loss = masked_loss(model(source, decoder_input, lengths, lengths), target, lengths)
print(f"untrained loss {loss.item():.2f}; correct code gives about 3.4 to 4.4 here, above log(29) = {np.log(29):.2f}")
# log(29) would be the loss of uniform scores. An untrained model's 29 scores spread by about 1 around their
# mean, and scores that spread add about half their variance to the loss: 3.37 + 0.5 = 3.87 on average.
# (Most correct models start between 3.6 and 4.1.)

# %% course={"task": "loss"} nbgrader={"grade": true, "grade_id": "loss__by_hand", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check the masked loss on a small batch worked out by hand.
scores = mg.tensor(np.log(np.array([
    [[0.5, 0.25, 0.25], [0.25, 0.5, 0.25]],
    [[0.25, 0.25, 0.5], [0.1, 0.1, 0.8]],  # position 1 of sequence 1 is padding
], dtype=np.float32)))  # (t, N, K) = (2, 2, 3): softmax gives these probabilities back
target = np.array([[0, 1], [2, 0]])
loss = masked_loss(scores, target, [2, 1])
want = -np.log(np.array([0.5, 0.5, 0.5])).mean()  # three real positions, each with probability 0.5
assert isinstance(loss, mg.Tensor) and loss.shape == (), "the loss should be a scalar Tensor"
over_all = -np.log(np.array([0.5, 0.5, 0.5])).sum() / 4  # the same sum divided by all t * N = 4 positions
assert not np.isclose(loss.item(), over_all, atol=1e-5), (
    f"loss {loss.item():.4f} is the sum over the 3 real positions divided by all t * N = 4 positions; "
    "divide by the number of real positions, sum(lengths) = 3"
)
with_padding = -np.log(np.array([0.5, 0.5, 0.5, 0.1])).mean()  # all four positions, the padded one too
as_uniform = (-np.log(np.array([0.5, 0.5, 0.5])).sum() + np.log(3)) / 4  # the padded one as a uniform guess
assert not np.isclose(loss.item(), with_padding, atol=1e-5), (
    f"loss {loss.item():.4f} counts the padded position (probability 0.1) too: average over the real positions only"
)
assert not np.isclose(loss.item(), as_uniform, atol=1e-4), (
    f"loss {loss.item():.4f} still counts the padded position, as a uniform guess: leave it out of the mean altogether"
)
assert np.isclose(loss.item(), want, atol=1e-5), f"loss {loss.item():.4f}, expected {want:.4f} (the mean over the 3 real positions)"
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng


def mean_loss(values, target, lengths):
    """The cross-entropy of the positions i < lengths[n], in NumPy."""
    real = np.arange(len(target))[:, None] < np.asarray(lengths)[None, :]
    logp = values - np.log(np.exp(values).sum(axis=-1, keepdims=True))
    return -np.take_along_axis(logp, target[..., None], axis=-1)[..., 0][real].mean()


rng = hidden_rng("loss__by_hand")  # this submission's own inputs
t, N, K = int(rng.integers(2, 7)), int(rng.integers(1, 5)), int(rng.integers(3, 12))
values = rng.normal(size=(t, N, K)).astype(np.float32)
target = rng.integers(0, K, size=(t, N))
full, ones, lengths = np.full(N, t), np.ones(N, dtype=int), rng.integers(1, t + 1, size=N)
want_full, want_first, want_drawn = (mean_loss(values, target, n) for n in (full, ones, lengths))
no_padding = masked_loss(mg.tensor(values), target.copy(), full.copy()).item()
first_only = masked_loss(mg.tensor(values), target.copy(), ones.copy()).item()
drawn = masked_loss(mg.tensor(values), target.copy(), lengths.tolist()).item()
assert np.shape(no_padding) == () and np.shape(first_only) == (), (
    f"losses of shapes {np.shape(no_padding)} and {np.shape(first_only)}, expected scalars ()"
)
assert np.isclose(no_padding, want_full, atol=1e-5), (
    "with no padding, every position counts, each sequence's END, its last real position, included: i < lengths[n]"
)
assert np.isclose(first_only, want_first, atol=1e-5), "with sequences of a single position, only the first position counts"
assert np.isclose(drawn, want_drawn, atol=1e-5), "with other lengths, the loss is not the mean over the real positions"
### END HIDDEN TESTS

# %% course={"task": "loss"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "loss__padding", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that padded positions add nothing to the loss or to its gradient.
rng = np.random.default_rng(18)
lengths = np.array([5, 2, 4])
values = rng.normal(size=(5, 3, 29)).astype(np.float32)
target = rng.integers(0, 29, size=(5, 3))
padded = np.arange(5)[:, None] >= lengths[None, :]  # (t, N): True at padded positions
junk = values.copy()
junk[padded] = 50 * rng.normal(size=(padded.sum(), 29))  # change the scores ...
junk_target = np.where(padded, 0, target)  # ... and the targets at padded positions
scores = mg.tensor(values)
loss = masked_loss(scores, target.copy(), lengths.copy())
loss.backward()
grad = scores.grad
again = masked_loss(mg.tensor(junk), junk_target.copy(), lengths.copy())
want = 3.6773  # this batch's loss, over its 11 real positions
without_end = 3.6013
assert not np.isclose(loss.item(), without_end, atol=1e-4), (
    f"loss {loss.item():.4f} leaves out each sequence's END, its last real position: the real positions are i < lengths[n]"
)
assert np.isclose(loss.item(), want, atol=1e-4), f"loss {loss.item():.4f}, expected {want:.4f}"
assert grad is not None, "scores.grad is None after loss.backward(): compute the loss from scores with MyGrad operations"
assert np.all(grad[padded] == 0), "scores.grad: a padded position got a non-zero gradient"
assert np.all(np.abs(grad[~padded]).sum(axis=-1) > 0), "scores.grad: every real position should get a gradient"
assert np.isclose(again.item(), want, atol=1e-4), (
    f"changing the scores and targets at padded positions changed the loss from {want:.4f} to {again.item():.4f}"
)
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("loss__padding")  # this submission's own inputs, none of the visible ones
t, N, K = int(rng.integers(3, 9)), int(rng.integers(2, 6)), int(rng.integers(5, 30))
lengths = rng.integers(1, t, size=N)  # every sequence padded ...
lengths[int(rng.integers(0, N))] = t  # ... but one
values = rng.normal(size=(t, N, K)).astype(np.float32)
target = rng.integers(0, K, size=(t, N))
real = np.arange(t)[:, None] < lengths[None, :]  # (t, N)
logp = values - np.log(np.exp(values).sum(axis=-1, keepdims=True))
want = -np.take_along_axis(logp, target[..., None], axis=-1)[..., 0][real].mean()
scores = mg.tensor(values)
loss = masked_loss(scores, target.copy(), lengths.copy())
loss.backward()
grad = scores.grad
loss_shape, loss_dtype = np.shape(loss), loss.dtype
assert loss_shape == (), f"the loss has shape {loss_shape}, expected a scalar ()"
assert np.isclose(loss.item(), want, atol=1e-4), "on other scores and lengths, the loss is not the mean over the real positions only"
assert loss_dtype == np.float32, f"loss dtype {loss_dtype}, expected float32"
assert grad is not None and np.all(grad[~real] == 0), "scores.grad: a padded position got a non-zero gradient"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "greedy_text", "locked": true, "schema_version": 3, "solution": false}
# ## Part K: decrypting, one symbol at a time (5 points)
#
# A new message comes without its plain text, so the model writes it itself, symbol by symbol, *greedy decoding*:
#
# 1. encode the one-hot cipher text (with `END`) once, with its lengths;
# 2. start the decoder input with `START`;
# 3. run the decoder on the input so far and, at its *last* position, pick the best-scoring alphabet symbol, the space included, never `START` or `END` (the plain text is as long as the cipher text);
# 4. append that symbol's one-hot vector to the decoder input and go back to 3, T − 1 times in all.
#
# Thanks to the causal mask, appending a symbol leaves the earlier outputs unchanged.

# %% [markdown] nbgrader={"grade": false, "grade_id": "greedy_batch_text", "locked": true, "schema_version": 3, "solution": false}
# **On a padded batch.** Every column gets T − 1 symbols, and column n keeps its first lengths[n] − 1. The source lengths go to `encode` and, as `src_lengths`, to `decode`; `decode` gets no `tgt_lengths`, since the decoder input so far (i + 1 rows at step i) holds no padding. A short message's column writes symbols past its end; the causal mask keeps them from changing the ones before, and they are thrown away.
#
# Write `greedy_decode`, for a whole batch at once, inside `mg.no_autodiff`. Use only the model's `encode` and `decode`: the tests hand it stand-in models with those two methods.

# %% nbgrader={"grade": false, "grade_id": "greedy", "locked": false, "schema_version": 3, "solution": true} tags=["library"]
def greedy_decode(model, source, lengths=None):
    """Decrypt a batch of one-hot cipher texts greedily, one symbol per decoder run.

    Parameters
    ----------
    model : Transformer
    source : numpy.ndarray, shape=(T, N, 29)
        One-hot cipher texts, each followed by END and padded to T positions.
    lengths : Optional[array_like of int], shape=(N,)
        The real positions of each source (message length + 1); None means no padding.

    Returns
    -------
    numpy.ndarray, shape=(T - 1, N), dtype=int64
        The predicted plain-text tokens, all in [0, 27); in column n only the
        first ``lengths[n] - 1`` mean something.
    """
    ### BEGIN SOLUTION
    T, N, _ = source.shape
    tokens = np.zeros((T - 1, N), dtype=np.int64)
    decoder_input = np.zeros((T, N, N_SYMBOLS), dtype=np.float32)
    decoder_input[0, :, START] = 1
    with mg.no_autodiff:
        enc_out = model.encode(source, lengths)
        for i in range(T - 1):
            scores = model.decode(enc_out, decoder_input[: i + 1], lengths)
            tokens[i] = np.argmax(scores.data[-1, :, : len(ALPHABET)], axis=-1)
            decoder_input[i + 1, np.arange(N), tokens[i]] = 1
    return tokens
    ### END SOLUTION


# %% [markdown] nbgrader={"grade": false, "grade_id": "decrypting_text", "locked": true, "schema_version": 3, "solution": false}
# Three given helpers build on it. `pieces_of` cuts a message longer than `PIECE` = 24 symbols into as few pieces as possible, all but the last of one length, a multiple of 4, so that every piece starts at the key's first symbol. `decrypt_many` pads the pieces of a list of messages into batches and decodes them with your `greedy_decode`; `decrypt_with_model(encrypted_message, model)` decrypts one message.

# %% nbgrader={"grade": false, "grade_id": "pieces_of", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
# Long messages are decrypted in pieces of at most PIECE symbols: a model learns the far
# positions last, and pieces of 24 keep every symbol where it is surest (see "How well ...").
PIECE = 24


def pieces_of(message, piece=PIECE):
    """Cut a message into pieces of at most ``piece`` symbols that start in step with the key.

    A message of at most ``piece`` symbols stays whole. A longer one is cut
    into as few pieces as possible, all but the last of one length: the
    smallest multiple of the key's length with which that many pieces cover
    the message, so every piece starts at the first key symbol, as every
    training message did (100 symbols: 20 + 20 + 20 + 20 + 20, not
    24 + 24 + 24 + 24 + 4 with its lone tail; 49 symbols: 20 + 20 + 9).
    """
    if piece % len(KEY):
        raise ValueError(f"pieces of {piece} symbols would not start in step with the {len(KEY)}-symbol key")
    if len(message) <= piece:
        return [message] if message else []
    n_pieces = -(-len(message) // piece)  # ceil
    size = -(-len(message) // (n_pieces * len(KEY))) * len(KEY)  # ceil to a multiple of the key length
    return [message[i : i + size] for i in range(0, len(message), size)]


# %% nbgrader={"grade": false, "grade_id": "decrypt_many", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
def decrypt_many(encrypted_messages, model, piece=PIECE, batch_size=256):
    """Decrypt messages of any lengths, in pieces of at most ``piece`` symbols.

    Longer messages are cut with ``pieces_of``. All pieces of all messages are
    padded into batches of up to ``batch_size`` and decoded together.

    Parameters
    ----------
    encrypted_messages : list of str
        Cipher texts written with ``ALPHABET`` (lowercase letters and spaces).
    model : Transformer

    Returns
    -------
    list of str
        The model's plain texts, each as long as its message.

    Raises
    ------
    ValueError
        If a message holds characters outside ``ALPHABET``; the error names them.
    """
    split = [pieces_of(m, piece) for m in encrypted_messages]
    pieces = [p for parts in split for p in parts]
    decoded = []
    for first in range(0, len(pieces), batch_size):
        group = pieces[first : first + batch_size]
        lengths = np.array([len(p) + 1 for p in group])
        source = np.zeros((lengths.max(), len(group), N_SYMBOLS), dtype=np.float32)
        for n, p in enumerate(group):
            source[: len(p) + 1, n] = one_hot_encode(p, end=True)
        tokens = greedy_decode(model, source, lengths)
        decoded += [text_of(tokens[: len(p), n]) for n, p in enumerate(group)]
    out, used = [], 0
    for parts in split:
        out.append("".join(decoded[used : used + len(parts)]))
        used += len(parts)
    return out


# %% nbgrader={"grade": false, "grade_id": "decrypt_with_model", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
def decrypt_with_model(encrypted_message, model):
    """Decrypt one message of any length, from one symbol to many paragraphs (see ``decrypt_many``)."""
    return decrypt_many([encrypted_message], model)[0]


# %%
untrained = Transformer(N_SYMBOLS, 30, n_enc=2, n_dec=2, n_head=4)
secret = cipher("attack at dawn", KEY)
print(repr(secret), "->", repr(decrypt_with_model(secret, untrained)))  # as long as the message; gibberish until trained


# %% course={"task": "greedy"} nbgrader={"grade": true, "grade_id": "greedy__step_by_step", "locked": true, "points": 2, "schema_version": 3, "solution": false}
# Check that greedy_decode picks, at every step, the best alphabet symbol given the symbols picked before.
# A stand-in model with scores the test knows takes the Transformer's place: only greedy_decode is checked.
from course.checks import KnownScores  # a stand-in for a trained model whose scores the check knows


rng = np.random.default_rng(10)
source = np.eye(N_SYMBOLS, dtype=np.float32)[rng.integers(0, 27, size=(7, 4))]  # T = 7, N = 4
source[-1] = np.eye(N_SYMBOLS, dtype=np.float32)[END]
tokens = greedy_decode(KnownScores(10), source.copy())
assert tokens.shape == (6, 4), f"tokens have shape {tokens.shape}, expected (T - 1, N) = (6, 4)"
assert np.issubdtype(np.asarray(tokens).dtype, np.integer), f"tokens have dtype {np.asarray(tokens).dtype}, expected integers"
assert np.all(tokens >= 0) and np.all(tokens < 27), (
    f"greedy_decode picked tokens {np.unique(tokens)}: START (27) and END (28) score highest here at times, but the plain "
    "text holds only the 27 alphabet symbols, so pick only among them"
)
want = np.array([
    [21, 21, 21, 22],
    [4, 1, 12, 10],
    [6, 14, 0, 2],
    [21, 14, 5, 22],
    [4, 21, 12, 0],
    [6, 1, 12, 21],
])  # the best symbol at every step, found once by hand
first_position = np.array([
    [21, 21, 21, 22],
    [21, 21, 21, 22],
    [21, 21, 21, 22],
    [21, 21, 21, 22],
    [21, 21, 21, 22],
    [21, 21, 21, 22],
])
not_fed_back = np.array([
    [21, 21, 21, 22],
    [21, 14, 12, 2],
    [1, 14, 2, 24],
    [4, 14, 21, 10],
    [4, 21, 12, 19],
    [6, 14, 6, 21],
])
assert not np.array_equal(tokens, first_position), (
    "every step took the scores at decoder position 0; the next symbol's scores are at the last position, -1"
)
assert not np.array_equal(tokens, not_fed_back), (
    "the decoder input stayed START and zeros: write each picked symbol's one-hot vector into the decoder input"
)
assert np.array_equal(tokens[:-1], want[:-1]), f"picked\n{tokens}\nexpected\n{want}"
assert np.array_equal(tokens[-1], want[-1]), (
    f"the last step picked {tokens[-1]}, expected {want[-1]}: decode T - 1 = 6 symbols, one per step"
)
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng


def reference_greedy(seed, source):
    """Greedy decoding of KnownScores(seed) with the test's own NumPy: at step i, the best alphabet symbol at decoder
    position i, whose scores read cipher position i, decoder input i and the mean of the encoder output."""
    by_source, by_input, by_mean = np.random.default_rng(seed).normal(size=(3, 29, 29)).astype(np.float32)
    by_input[:, 27:] += 2  # as KnownScores: START and END often score highest
    T, N = source.shape[:2]
    enc_out = source + source.sum(axis=0) / np.float32(T)
    mean = enc_out.sum(axis=0) / np.float32(T)
    picked = np.zeros((T - 1, N), dtype=np.int64)
    decoder_input = np.zeros((T, N, 29), dtype=np.float32)
    decoder_input[0, :, 27] = 1  # START
    for i in range(T - 1):
        scores = enc_out[i] @ by_source + decoder_input[i] @ by_input + mean @ by_mean
        picked[i] = scores[:, :27].argmax(axis=-1)
        decoder_input[i + 1, np.arange(N), picked[i]] = 1
    return picked


rng = hidden_rng("greedy__step_by_step")  # this submission's own inputs, none of the visible ones
T, N, seed = int(rng.integers(3, 12)), int(rng.integers(1, 6)), int(rng.integers(2**31))
source5 = np.eye(29, dtype=np.float32)[rng.integers(0, 27, size=(T, N))]
source5[-1] = np.eye(29, dtype=np.float32)[28]  # END
want5 = reference_greedy(seed, source5)
tokens_shape = (T - 1, N)
tokens5 = greedy_decode(KnownScores(seed), source5.copy())
assert tokens5.shape == tokens_shape, f"tokens have shape {tokens5.shape}, expected (T - 1, N)"
assert np.array_equal(tokens5, want5), "another model and message: a step did not pick the best alphabet symbol"
### END HIDDEN TESTS

# %% course={"task": "greedy"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "greedy__every_symbol", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that every alphabet symbol can be picked, the space (token 26) too.
def encoded(text):
    """The test's own one-hot encoding of text with END after it, (len(text) + 1, 29): yours is checked in Part B."""
    return np.eye(29, dtype=np.float32)[["abcdefghijklmnopqrstuvwxyz ".index(c) for c in text] + [28]]



class Favourite:
    """A stand-in model whose scores are the same at every position: ``scores`` (29,) for every decoder position."""

    def __init__(self, scores):
        self.scores = np.asarray(scores, dtype=np.float32)

    def encode(self, src, lengths=None):
        return mg.tensor(np.asarray(src))

    def decode(self, enc_out, tgt, src_lengths=None, tgt_lengths=None):
        return mg.tensor(np.zeros(tgt.shape[:2] + (N_SYMBOLS,), dtype=np.float32) + self.scores)

    def __call__(self, src, tgt, src_lengths=None, tgt_lengths=None):
        return self.decode(self.encode(src, src_lengths), tgt, src_lengths, tgt_lengths)


source = np.stack([encoded("hello"), encoded("world")], axis=1)
picked = [greedy_decode(Favourite(np.eye(N_SYMBOLS)[favourite] * 1000), source.copy()) for favourite in (0, 26)]
for (favourite, symbol), tokens in zip([(0, "a"), (26, " ")], picked):
    assert tokens.shape == (5, 2), f"symbol {favourite} scores highest: tokens have shape {tokens.shape}, expected (T - 1, N) = (5, 2)"
    assert np.all(tokens == favourite), (
        f"symbol {favourite} ({symbol!r}) scores highest, but greedy_decode picked {tokens[:, 0]}: "
        "pick among all 27 alphabet symbols, the space included"
    )
scores = np.zeros(N_SYMBOLS, dtype=np.float32)
scores[[START, END]] = 1000  # START and END score highest everywhere ...
scores[7] = 500  # ... and h is the best alphabet symbol
tokens = greedy_decode(Favourite(scores), source.copy())
assert tokens.shape == (5, 2), f"tokens have shape {tokens.shape}, expected (T - 1, N) = (5, 2)"
assert np.all(tokens == 7), (
    f"greedy_decode picked {tokens[:, 0]} where START and END score highest and h (token 7) is the best symbol: "
    "the plain text holds only the 27 alphabet symbols, so pick only among them"
)
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("greedy__every_symbol")  # this submission's own inputs
favourites = [int(f) for f in rng.choice(27, size=6, replace=False)]
L, N = int(rng.integers(1, 12)), int(rng.integers(1, 5))
texts = ["".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz "), size=L)) for _ in range(N)]
own_source = np.stack([encoded(text) for text in texts], axis=1)  # (L + 1, N, 29)
wanted = [np.full((L, N), f) for f in favourites]
by_symbol = [greedy_decode(Favourite(np.eye(N_SYMBOLS)[f] * 1000), own_source.copy()) for f in favourites]
for want, tokens in zip(wanted, by_symbol, strict=True):
    assert np.shape(tokens) == want.shape and np.array_equal(tokens, want), (
        "when one alphabet symbol scores highest, greedy_decode picked other symbols"
    )
### END HIDDEN TESTS

# %% course={"task": "greedy"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "greedy__padding", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that greedy_decode, given the lengths, decodes a padded batch as it decodes each message alone.
# The stand-in model of the check above, whose encode and decode read only the real positions they are told of.
def encoded(text):
    """The test's own one-hot encoding of text with END after it, (len(text) + 1, 29): yours is checked in Part B."""
    return np.eye(29, dtype=np.float32)[["abcdefghijklmnopqrstuvwxyz ".index(c) for c in text] + [28]]



from course.checks import KnownScores  # a stand-in for a trained model whose scores the check knows


messages = ["zebra", "an", "the quick"]
lengths = np.array([len(m) + 1 for m in messages])
rng = np.random.default_rng(12)
source = 10 * np.eye(N_SYMBOLS, dtype=np.float32)[rng.integers(0, 27, size=(10, 3))]  # junk: padding may hold anything
for n, m in enumerate(messages):
    source[: len(m) + 1, n] = encoded(m)
in_batch = greedy_decode(KnownScores(12), source.copy(), lengths.copy())
alone = [greedy_decode(KnownScores(12), encoded(m)[:, None])[:, 0] for m in messages]
want = [np.array([15, 10, 13, 3, 15]), np.array([4, 26]), np.array([0, 24, 1, 0, 25, 1, 0, 24, 1])]
assert in_batch.shape == (9, 3), f"tokens have shape {in_batch.shape}, expected (T - 1, N) = (9, 3)"
for n, (m, tokens_alone) in enumerate(zip(messages, alone)):
    assert np.array_equal(tokens_alone, want[n]), f"{m!r} alone decodes to {tokens_alone}, expected {want[n]}"
    assert np.array_equal(in_batch[: len(m), n], want[n]), (
        f"{m!r} decodes to {in_batch[:len(m), n]} in the padded batch, {want[n]} alone: "
        "pass the lengths to model.encode and, as src_lengths, to model.decode"
    )


# %% course={"task": "greedy"} jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "greedy__encoder_once", "locked": true, "points": 1, "schema_version": 3, "solution": false}
# Check that greedy_decode runs the encoder once and the decoder once per output symbol.
def encoded(text):
    """The test's own one-hot encoding of text with END after it, (len(text) + 1, 29): yours is checked in Part B."""
    return np.eye(29, dtype=np.float32)[["abcdefghijklmnopqrstuvwxyz ".index(c) for c in text] + [28]]



class Counting:
    """A stand-in model that counts its encoder and decoder runs; h (token 7) scores highest everywhere."""

    def __init__(self):
        self.calls = {"encode": 0, "decode": 0}

    def encode(self, src, lengths=None):
        self.calls["encode"] += 1
        return mg.tensor(np.asarray(src))

    def decode(self, enc_out, tgt, src_lengths=None, tgt_lengths=None):
        self.calls["decode"] += 1
        scores = np.zeros(tgt.shape[:2] + (N_SYMBOLS,), dtype=np.float32)
        scores[..., 7] = 1
        return mg.tensor(scores)

    def __call__(self, src, tgt, src_lengths=None, tgt_lengths=None):
        return self.decode(self.encode(src, src_lengths), tgt, src_lengths, tgt_lengths)


counting = Counting()
source = np.stack([encoded("hello"), encoded("world")], axis=1)
tokens = greedy_decode(counting, source.copy())
calls = dict(counting.calls)
assert tokens.shape == (5, 2), f"tokens have shape {tokens.shape}, expected (T - 1, N) = (5, 2)"
assert calls == {"encode": 1, "decode": 5}, (
    f"{calls}: expected one encoder run (model.encode, once per batch) and T - 1 = 5 decoder runs (model.decode)"
)
### BEGIN HIDDEN TESTS
from course.draws import hidden_rng

rng = hidden_rng("greedy__encoder_once")  # this submission's own inputs
symbols = list("abcdefghijklmnopqrstuvwxyz ")
short_text = "".join(rng.choice(symbols, size=int(rng.integers(1, 25))))
long_text = "".join(rng.choice(symbols, size=int(rng.integers(49, 160))))  # longer than MAX_LENGTH
L, N = int(rng.integers(2, 15)), int(rng.integers(1, 5))
batch = np.stack([encoded("".join(rng.choice(symbols, size=L))) for _ in range(N)], axis=1)  # (L + 1, N, 29)
want_short, want_long, want_calls = "h" * len(short_text), "h" * len(long_text), {"encode": 1, "decode": L}
message = decrypt_with_model(short_text, Counting())
long_message = decrypt_with_model(long_text, Counting())
counting = Counting()
tokens = greedy_decode(counting, batch.copy())
calls = dict(counting.calls)
assert message == want_short, "decrypt_with_model should give one symbol per cipher-text symbol, the model's best at each step"
assert long_message == want_long, "a message longer than MAX_LENGTH should be decoded in pieces"
assert calls == want_calls, "expected one encoder run (model.encode, once per batch) and T - 1 decoder runs (model.decode)"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "training_text", "locked": true, "schema_version": 3, "solution": false}
# ## Training
#
# `SETTINGS` below: 2 encoder and 2 decoder layers, 4 heads of $d_k = 7$, 64 hidden units per feed-forward network, the quarter-turn encoding. Each step draws a fresh batch of 32 messages (half corpus, half random symbols, lengths 1–48), pads it and takes one Adam step on `masked_loss`; the rate drops from 3·10⁻³ to 5·10⁻⁴ for the last 40 % of the steps, which steadies the model.
#
# Expect a plateau: the loss first falls to about what can be guessed without the key (letter frequencies, and in English the letters before), stays there for several hundred steps, then drops steeply, and the accuracy climbs towards 100 %.

# %% [markdown] nbgrader={"grade": false, "grade_id": "teacher_forcing_text", "locked": true, "schema_version": 3, "solution": false}
# **Teacher forcing.** Notebook 02's Seq2Seq trained free running, on its own guesses. This decoder reads the true plain text, *teacher forcing*, and the causal mask makes that sound and parallel. Sound, because position $i$ reads the true symbols before it, never the one it must predict: what it reads when decrypting, if its earlier guesses are right. Parallel, because the mask gives each position its own view of one input, so one pass trains all $t$ predictions, where an RNN takes $t$ steps. The price is 02's *exposure bias*, which costs little here: each plain symbol follows from its cipher symbol and its position alone, and in the random half of the messages the symbols before give no clue to the next, so a wrong one there does little harm. The accuracies plotted are teacher-forced: per real character, and per message.

# %% [markdown] nbgrader={"grade": false, "grade_id": "training_promise_text", "locked": true, "schema_version": 3, "solution": false}
# **What full mode promises.** Trained in full mode (2000 steps), most runs leave the plateau and decrypt held-out messages almost perfectly (below); some fall short of that, and some are still on it at the end. If yours falls short, retrain with other seeds (both of the training cell). That takes about a minute on a laptop, a little longer on a busy machine (a float64 constant, such as a Python float, slows every step). Your own code draws its weights in another order: your plateau and figures will differ.

# %% nbgrader={"grade": false, "grade_id": "settings", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
# The training settings, in one place: the training cell below reads them.
SETTINGS = {
    "ff_units": 64,  # hidden units of every feed-forward network
    "n_enc": 2,  # encoder layers
    "n_dec": 2,  # decoder layers
    "n_head": 4,  # heads of every attention (d_k = 29 // 4 = 7)
    "batch_size": 32,  # messages per step
    "learning_rate": 3e-3,  # Adam's rate at first ...
    "final_learning_rate": 5e-4,  # ... and for the last steps
    "drop_at": 0.6,  # the share of the steps after which the rate drops
    "random_share": 0.5,  # the share of messages made of random symbols
    "positional_encoding": "quarter turn",  # or "standard": a key of ENCODERS
    "n_steps": 2000,  # training steps in full mode
}


# the positional encodings of Part H, by name
ENCODERS = {"standard": PositionalEncoder, "quarter turn": QuarterTurnEncoder}


# %% nbgrader={"grade": false, "grade_id": "new_model", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
def new_model(positional_encoding=None):
    """A fresh Transformer of the size in ``SETTINGS`` (weights from NumPy's global generator).

    ``positional_encoding`` names a key of ``ENCODERS``; None means ``SETTINGS["positional_encoding"]``.
    """
    s = SETTINGS
    model = Transformer(N_SYMBOLS, s["ff_units"], n_enc=s["n_enc"], n_dec=s["n_dec"], n_head=s["n_head"])
    model.pos_enc = ENCODERS[positional_encoding or s["positional_encoding"]](N_SYMBOLS)
    return model


# %% nbgrader={"grade": false, "grade_id": "learning_rate", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
def learning_rate(step, n_steps):
    """Adam's learning rate at training step ``step`` of ``n_steps``."""
    drop = step >= int(SETTINGS["drop_at"] * n_steps)
    return SETTINGS["final_learning_rate"] if drop else SETTINGS["learning_rate"]


# %% nbgrader={"grade": false, "grade_id": "training_step", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
def training_step(model, optimizer, rng, texts, batch_size=None):
    """One step of Adam on a fresh batch of messages drawn from ``texts`` (``SETTINGS["batch_size"]`` of them).

    Returns the loss (a float), the scores (t, N, 29), the targets (t, N) and the lengths (N,).
    """
    batch_size = SETTINGS["batch_size"] if batch_size is None else batch_size
    messages = sample_messages(rng, texts, batch_size, random_share=SETTINGS["random_share"])
    source, decoder_input, target, lengths = make_batch(messages)
    scores = model(source, decoder_input, lengths, lengths)
    loss = masked_loss(scores, target, lengths)
    loss.backward()
    optimizer.step()
    return loss.item(), scores.data, target, lengths


# %% [markdown] nbgrader={"grade": false, "grade_id": "fused_text", "locked": true, "schema_version": 3, "solution": false}
# **Training on fused operations.** `course.ops` has your layer norm and `masked_loss` as one operation each, with hand-written gradients: faster. The cell below checks each against yours on random inputs; inside `with fused:` only, those that agree stand in for yours, and it names any it leaves to your code.

# %% nbgrader={"grade": false, "grade_id": "fused", "locked": true, "schema_version": 3, "solution": false}
from course.fused import transformer_training

fused = transformer_training(globals())  # prints what training will run

# %% tags=["slow"]
np.random.seed(0)  # the initial weights come from NumPy's global generator
model = new_model()
optimizer = Adam(model.parameters, learning_rate=SETTINGS["learning_rate"])
n_steps = pick(full=SETTINGS["n_steps"], quick=2)
rng = np.random.default_rng(0)

plotter, fig, ax = create_plot(["loss", "char_accuracy", "message_accuracy"])
with mg.mem_guard_off, fused:  # fused: course.ops runs the layer norm and the loss, where the cell above found they agree
    for step in progress(n_steps):  # range(n_steps), with a progress line every 30 s
        optimizer.learning_rate = learning_rate(step, n_steps)
        loss, scores, target, lengths = training_step(model, optimizer, rng, train_texts)
        real = np.arange(len(target))[:, None] < lengths  # (T, N): the positions that count
        right = (scores.argmax(axis=-1) == target) | ~real  # teacher forcing; padding counts as right
        plotter.set_train_batch(
            {"loss": loss, "char_accuracy": right[real].mean(), "message_accuracy": right.all(axis=0).mean()},
            batch_size=len(lengths),
        )
plotter.plot()

# %% [markdown] nbgrader={"grade": false, "grade_id": "evaluate_text", "locked": true, "schema_version": 3, "solution": false}
# ## How well does it decrypt new text?
#
# The real test: greedy decoding of held-out messages in four bands of lengths, the two longer bands in pieces of at most `PIECE` = 24 symbols, half the longest training message. The cell reports the share of characters right and of messages entirely right; a 100-symbol message is entirely right only without a single mistake, so that column asks for the rule itself. After the full 2000 steps, off the plateau, expect at least 97 % of the characters in every band, and in most runs at least 99.7 % of the characters and 84 % of the whole messages. Quick mode, which grading uses, trains for 2 steps and gets none of this.

# %% nbgrader={"grade": false, "grade_id": "evaluation", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
BANDS = ((1, 12), (13, 24), (25, 48), (49, 100))  # message lengths, shortest to longest


def held_out_messages(texts, low, high, n, seed=0):
    """``n`` plain-text messages with lengths in [low, high], each from another held-out text.

    ``texts`` holds alphabet tokens, shape (L, M) with L >= high; message i is
    cut at a random place from text ``i mod M``.
    """
    rng = np.random.default_rng(seed)
    messages = []
    for i, length in enumerate(rng.integers(low, high + 1, size=n)):
        start = rng.integers(texts.shape[0] - length + 1)
        messages.append(text_of(texts[start : start + length, i % texts.shape[1]]))
    return messages


# %% nbgrader={"grade": false, "grade_id": "score", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
def score(guesses, messages):
    """(per-character, whole-message) accuracy of the decrypted ``guesses`` against the plain ``messages``."""
    right = [sum(a == b for a, b in zip(g, m)) for g, m in zip(guesses, messages)]
    per_character = sum(right) / sum(len(m) for m in messages)
    whole = np.mean([g == m for g, m in zip(guesses, messages)])
    return per_character, float(whole)


# %% nbgrader={"grade": false, "grade_id": "accuracy", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
def accuracy(model, messages):
    """Decrypt ``cipher(m, KEY)`` for every message ``m``: (per-character, whole-message) accuracy."""
    return score(decrypt_many([cipher(m, KEY) for m in messages], model), messages)


# %% nbgrader={"grade": false, "grade_id": "accuracy_by_band", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
def accuracy_by_band(model, texts, n=300, seed=0):
    """{(low, high): (per-character, whole-message)} on ``n`` held-out messages per band of ``BANDS``."""
    bands = {band: held_out_messages(texts, *band, n, seed) for band in BANDS}
    # one decrypt_many call for all bands: fuller batches, and one greedy pass instead of four when n is small
    guesses = iter(decrypt_many([cipher(m, KEY) for messages in bands.values() for m in messages], model))
    return {band: score([next(guesses) for _ in messages], messages) for band, messages in bands.items()}


# %% tags=["slow"]
n_eval = pick(full=300, quick=1)  # messages per band
started = time.perf_counter()
results = accuracy_by_band(model, held_out_texts, n=n_eval)
print(f"{n_eval} held-out messages per band, decrypted in {time.perf_counter() - started:.1f} s")
print("length   per character   whole messages")
for (low, high), (per_character, whole) in results.items():
    print(f"{low:>3}-{high:<3}  {per_character:13.2%}   {whole:14.1%}")
for message in held_out_messages(held_out_texts, 13, 24, pick(full=3, quick=1), seed=1):
    print(f"{message!r:28} -> {decrypt_with_model(cipher(message, KEY), model)!r}")

# %% [markdown] nbgrader={"grade": false, "grade_id": "own_message_text", "locked": true, "schema_version": 3, "solution": false}
# Now your own message, in lowercase letters and spaces (anything else raises a `ValueError` naming the culprits): one letter, a word, a sentence, a paragraph.

# %%
message = "meet me by the old mill at nine"
tokens_of(message)  # a ValueError that names any character outside ALPHABET
secret = cipher(message, KEY)
print(f"message   {message!r}")
print(f"encrypted {secret!r}")
print(f"decrypted {decrypt_with_model(secret, model)!r}")

# %% [markdown] nbgrader={"grade": false, "grade_id": "learned_text", "locked": true, "schema_version": 3, "solution": false}
# ## What did it learn?
#
# The model saw pairs of cipher and plain text, never the key; every training message started at the key's first symbol and had at most 48 symbols. Has it learned to decrypt Vigenère ciphers, or this one key? The cell below decrypts held-out messages encrypted with the key started one symbol later, `"lapc"` (as a piece cut from the middle of a longer message would be), and messages of 49–100 symbols, in pieces and whole (`piece=100`).
#
# Expect close to none of the characters right with the key one symbol later: at position $i$ the model subtracts the key symbol it learned for $i \bmod 4$, now always the wrong one (no two neighbouring symbols of `"clap"` are equal). It learned one key, aligned with the message's start. Expect the long messages decrypted whole to lose many characters and nearly every whole message, where in pieces they keep nearly every character: it never trained on positions past 48.

# %% tags=["slow"]
messages = held_out_messages(held_out_texts, 1, MAX_LENGTH, pick(full=200, quick=2), seed=3)
long_messages = held_out_messages(held_out_texts, 49, 100, pick(full=200, quick=2), seed=3)
one_later = KEY[1:] + KEY[0]  # "lapc": the key started one symbol later
tests = {
    "1-48, the key in step": ([cipher(m, KEY) for m in messages], messages, PIECE),
    "1-48, the key one symbol later": ([cipher(m, one_later) for m in messages], messages, PIECE),
    "49-100, in pieces": ([cipher(m, KEY) for m in long_messages], long_messages, PIECE),
    "49-100, whole": ([cipher(m, KEY) for m in long_messages], long_messages, 100),
}
print("held-out messages                per character   whole messages")
for name, (secrets, plain, piece) in tests.items():
    per_character, whole = score(decrypt_many(secrets, model, piece=piece), plain)
    print(f"{name:32} {per_character:13.2%}   {whole:14.1%}")

# %% [markdown] nbgrader={"grade": false, "grade_id": "encodings_text", "locked": true, "schema_version": 3, "solution": false}
# ## Standard or quarter turn?
#
# The cell below trains the model of `SETTINGS` twice, from the same initial weights on the same batches, once with each encoding of Part H, for the first 1,200 steps of the main run's schedule (2 in quick mode), then decrypts the same 300 held-out messages of 1–48 symbols with each. Both sit on the plateau for a while; what differs is how soon each leaves it. Often the quarter turn is ahead, sometimes the standard one, and sometimes both are still on the plateau: compare the two in your own run. Both runs take a minute or two on a laptop.

# %% tags=["slow"]
n_compare = pick(full=1200, quick=2)  # training steps per encoding
messages = held_out_messages(held_out_texts, 1, MAX_LENGTH, pick(full=300, quick=2), seed=2)
started = time.perf_counter()
for name in ENCODERS:
    np.random.seed(0)  # the same initial weights for both encodings ...
    rival = new_model(name)
    rival_optimizer = Adam(rival.parameters, learning_rate=SETTINGS["learning_rate"])
    rival_rng = np.random.default_rng(0)  # ... and the same batches
    with mg.mem_guard_off, fused:
        for step in progress(n_compare):  # range(n_compare), with a progress line every 30 s
            rival_optimizer.learning_rate = learning_rate(step, SETTINGS["n_steps"])  # the main run's first steps
            training_step(rival, rival_optimizer, rival_rng, train_texts)
    per_character, whole = accuracy(rival, messages)
    print(f"{name:>12} encoding, {n_compare} steps: {per_character:7.2%} of the characters, {whole:6.1%} of the messages")
print(f"both runs in {time.perf_counter() - started:.0f} s")


# %% [markdown] nbgrader={"grade": false, "grade_id": "attention_pictures_text", "locked": true, "schema_version": 3, "solution": false}
# ## Inside the model: the attention weights
#
# `attention_maps(model, encrypted_message)` decrypts one message (1 to 48 symbols) and returns the weights of every layer and head, `"encoder"` (n_enc, h, T, T), `"decoder_self"` (n_dec, h, t, t) and `"cross"` (n_dec, h, t, T), queries on axis −2 and keys on axis −1, with the positions' labels and the decrypted text. `show_attention_maps` draws them, one row per layer and one block per head; in a block a bright square means "this query reads that key". `␣` is a space; `S` and `E` are `START` and `END`.

# %% nbgrader={"grade": false, "grade_id": "attention_maps", "locked": true, "schema_version": 3, "solution": false} tags=["library"]
def attention_maps(model, encrypted_message):
    """Decrypt one message and return the attention weights of every layer and head.

    The decoder runs once more on START and the decrypted symbols. For a
    message of at most ``PIECE`` symbols each query's weights are those it had
    when its symbol was chosen (the causal mask makes the two the same); a
    longer one was decrypted in pieces, and its maps show the model reading it whole.

    Parameters
    ----------
    model : Transformer
    encrypted_message : str
        Cipher text of 1 to ``MAX_LENGTH`` symbols of ``ALPHABET``.

    Returns
    -------
    dict
        ``"decrypted"``: str, the model's plain text (length L);
        ``"source"``: list of T = L + 1 labels, the cipher symbols then ``"END"``;
        ``"decoder_input"``: list of t = L + 1 labels, ``"START"`` then the decrypted symbols;
        ``"encoder"``: numpy.ndarray, shape=(n_enc, h, T, T), encoder self-attention;
        ``"decoder_self"``: numpy.ndarray, shape=(n_dec, h, t, t), masked decoder self-attention;
        ``"cross"``: numpy.ndarray, shape=(n_dec, h, t, T), encoder-decoder attention.
        In every array, axis -2 holds the queries and axis -1 the keys; each row sums to one.

    Raises
    ------
    ValueError
        For an empty message, one longer than ``MAX_LENGTH``, or characters outside ``ALPHABET``.
    """
    if not 1 <= len(encrypted_message) <= MAX_LENGTH:
        raise ValueError(f"attention_maps takes 1 to {MAX_LENGTH} symbols, not {len(encrypted_message)}")
    decrypted = decrypt_with_model(encrypted_message, model)
    source = one_hot_encode(encrypted_message, end=True)[:, None]  # (T, 1, 29)
    decoder_input = one_hot_encode(decrypted, start=True)[:, None]  # (t, 1, 29)
    with mg.no_autodiff:
        model(source, decoder_input)

    def stacked(attentions):  # one (t, 1, h, T) a_ij per layer -> (layers, h, t, T)
        return np.stack([np.asarray(a.a_ij)[:, 0].transpose(1, 0, 2) for a in attentions])

    return {
        "decrypted": decrypted,
        "source": [*encrypted_message, "END"],
        "decoder_input": ["START", *decrypted],
        "encoder": stacked([layer.self_attn for layer in model.enc_layers]),
        "decoder_self": stacked([layer.self_attn for layer in model.dec_layers]),
        "cross": stacked([layer.enc_dec_attn for layer in model.dec_layers]),
    }


# %%
# try your own message (1 to 48 symbols); quick mode, which grading uses, draws a short one
show_attention_maps(attention_maps(model, cipher(pick(full="attention reads the key", quick="the key"), KEY)))

# %% [markdown] nbgrader={"grade": false, "grade_id": "explorer_text", "locked": true, "schema_version": 3, "solution": false}
# ## Explore the trained model
#
# Type a message and press Enter: the explorer encrypts it with `KEY`, lets the model decrypt it (wrong characters in red) and draws the attention of one layer and head, or their mean.

# %% tags=["explorer"]
from course.figures import cipher_explorer


def attention_of(secret):
    """{kind: (weights (layers, h, t, T), query labels, key labels)} for the first 48 symbols of ``secret``."""
    maps = attention_maps(model, secret[:48])  # one piece, in step with the key
    source, decoder_input = maps["source"], maps["decoder_input"]
    return {
        "encoder self-attention": (maps["encoder"], source, source),
        "decoder self-attention": (maps["decoder_self"], decoder_input, decoder_input),
        "encoder-decoder attention": (maps["cross"], decoder_input, source),
    }


cipher_explorer(encrypt=lambda m: cipher(m, KEY), decrypt=lambda c: decrypt_with_model(c, model), attention=attention_of)

# %% [markdown] nbgrader={"grade": false, "grade_id": "questions_text", "locked": true, "schema_version": 3, "solution": false}
# ## Questions (4 points)
#
# Answer in the cell below, in a few sentences each.
#
# 1. In the encoder–decoder attention of the trained model, which cipher positions does the query at decoder position $i$ (input: START or plain symbol $i-1$, output: plain symbol $i$) read? Why is that where the answer is?
# 2. Every training message starts at the first symbol of the key. How could the model know which key symbol applies at position $i$? Which part of the model supplies that information?
# 3. Half of the training messages are random symbols. What would a model trained on corpus text alone get wrong, and on which messages would you expect to see it?
#
# ### BEGIN MARK SCHEME
#
# **For the grader** (this part is removed from the student version and from the feedback).
#
# *Model answer.*
# 1. Mostly cipher position $i$, the same position: the $i$-th plain symbol is the $i$-th cipher symbol shifted back by key symbol $i \bmod 4$, so the cipher symbol the output needs sits at that one source position; which key symbol to subtract follows from the position, and the key itself is in the weights. In the picture of the trained model this shows as a bright diagonal in at least one head; other heads may spread their weight, and the padded keys get none.
# 2. From the positional encoding: it is added to every input vector, and its fastest pair (quarter turn) repeats every 4 positions, so $i \bmod 4$ (which key symbol applies) can be read off each position's vector. The encoder's self-attention, which sees its inputs as a set, could not tell positions apart without it; the decoder's causal mask gives only a weak count (exercise 6).
# 3. It would lean on the language: it would "correct" rare words, names and typos towards frequent English spellings, and fail on messages that are not English prose (random letters, codes, abbreviations), more so on short messages, where there is little context to lean on.
#
# *Rubric (4 points).*
# - Question 1 (2 points): 1 point for the same position $i$ (a bright diagonal in the picture); 1 point for the reason: one cipher symbol and one key symbol decide each output symbol, so attention can read that cipher symbol at its own source position, wherever it sits, without carrying it through a state.
# - Question 2 (1 point): the positional encoding supplies $i \bmod 4$ (the quarter turn's fastest pair repeats every 4 positions; with the standard encoding, accept any account of how a layer can work $i \bmod 4$ out of its features); no point for "attention" alone.
# - Question 3 (1 point): a concrete failure of a language-trained model on non-prose or unusual text, and where it shows.
# - Half points where an answer has the idea but not its reason; answers that describe another pattern in their own full run, and explain it, get the credit (the graded notebook shows only the quick-mode run's maps).
#
# ### END MARK SCHEME

# %% [markdown] nbgrader={"grade": true, "grade_id": "questions", "locked": false, "points": 4, "schema_version": 3, "solution": true}
# The model answer and the rubric are in the mark scheme of the question above.

# %% [markdown] nbgrader={"grade": false, "grade_id": "attention_suits_text", "locked": true, "schema_version": 3, "solution": false}
# ## Why attention suits this cipher
#
# Plain symbol $i$ depends on two things only: cipher symbol $i$, and which key symbol applies at position $i$. Attention reads cipher symbol $i$ straight from its own position, for every position at once, where 02's encoder–decoder must squeeze it through one state. (Even 01's plain RNN could learn this cipher, which goes position by position, by counting $i \bmod 4$; attention earns its keep when the symbol needed is far away or out of order, as in the reversal, which 03's attention solved.) The cell below checks your answer to question 1: the share of each encoder–decoder head's weight on the query's own position (the diagonal of the maps), over held-out messages. Expect at least one head close to 1.

# %%
# the share of each encoder-decoder head's weight on the query's own position, averaged over held-out messages
messages = held_out_messages(held_out_texts, 1, MAX_LENGTH, pick(full=50, quick=2), seed=4)
on_own = np.zeros((SETTINGS["n_dec"], SETTINGS["n_head"]))
for message in messages:
    cross = attention_maps(model, cipher(message, KEY))["cross"]  # (n_dec, h, t, T)
    L = len(message)  # queries 0 .. L-1 write plain symbols 0 .. L-1; keys 0 .. L-1 are the cipher symbols
    on_own += np.einsum("lhii->lh", cross[:, :, :L, :L]) / L / len(messages)
for layer, shares in enumerate(on_own):
    print(f"decoder layer {layer}: " + ", ".join(f"head {j} {share:.2f}" for j, share in enumerate(shares)))
print(f"the most: {on_own.max():.2f} of a head's weight on cipher symbol i")

# %% [markdown] nbgrader={"grade": false, "grade_id": "exercises_text", "locked": true, "schema_version": 3, "solution": false}
# ## Exercises
#
# Not graded. Keep a copy of the trained `model` before you train another.
#
# 1. **Label smoothing.** Write a loss that puts probability 0.9 on the right token and spreads 0.1 over the other 28 (`mg.nnet.logsoftmax`, the real positions of `masked_loss`). Does the plateau end sooner, and does the held-out accuracy change? Why might smoothing help a translation model more than a cipher, whose answer is exactly determined?
# 2. **Warm-up.** Use the original Transformer's schedule, $\text{rate}(s) = d^{-1/2} \min\big(s^{-1/2},\ s\, w^{-3/2}\big)$ with $w = 200$ warm-up steps (times a constant), counting from $s = 1$ (`step + 1`). Which loss curve leaves the plateau first?
# 3. **Pre-LN.** Write a `PreNormResidual` computing $x + \operatorname{sublayer}(\operatorname{Norm}(x))$ (the sub-layer passed in as a function), use it in both layer classes, with one more `Norm` after each stack, and train. Compare the loss curves with post-LN's, then again with the rate five times higher for both.

# %% [markdown] nbgrader={"grade": false, "grade_id": "exercises_more_text", "locked": true, "schema_version": 3, "solution": false}
# 4. **Beam search.** Write a beam search for `Transformer.decode`, as notebook 02 did for Seq2Seq: keep the $B$ best partial plain texts by the sum of their log-probabilities. With $B = 4$, does it ever beat greedy decoding on held-out messages? What does that say about the model's confidence?
# 5. **More heads or wider heads?** With d = 29, train with `n_head` = 1, 2, 4 and 7 ($d_k$ = 29, 14, 7, 4). Then pad the one-hot vectors with zeros to d = 32 and 64. Which helps more, and how do the pictures change?
# 6. **Any key.** Give each message its own random key of 3 to 6 symbols, and the model the key too, at the front of the source behind a separator token of its own (`N_SYMBOLS` becomes 30). The model must now learn decryption rather than one key. Does the quarter turn still help when the key's period varies? Then train with no position at all (a positional encoder whose `__call__` returns zeros): what does the model get right, and why can the causal mask still tell a few positions apart?

# %% [markdown] nbgrader={"grade": false, "grade_id": "recap", "locked": true, "schema_version": 3, "solution": false}
# ## Recap
#
# - Scaled dot-product attention mixes values with softmax weights from query–key dot products divided by $\sqrt{d_k}$; multi-head attention runs several heads in their own projections.
# - A mask rules out pairs *before* the softmax: padding masks keep attention off a batch's filler, the causal mask hides the symbols still to predict, and the loss averages over real positions only.
# - Residual connections and layer normalisation wrap every sub-layer; a positional encoding gives order to a model that otherwise sees a set.
# - Training reads the whole target at once (teacher forcing, sound under the causal mask); decrypting writes one symbol at a time. Random symbols beside English teach the rule rather than the language, and the rule learned is one key, from the start of a message.
#
# Larger Transformers use the same parts, with learned token embeddings, cached keys and values, and beam search.

