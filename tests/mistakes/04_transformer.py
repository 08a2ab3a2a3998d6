"""Mistakes students make in 04_transformer, each of which must lose points."""

from instructor.authoring.mistakes import Mistake

REFERENCE_WEIGHING = "    weights = ops.softmax(scores, axis=-1, mask=mask)  # a masked key gets weight exactly 0\n"


def _weighing(axis):
    """The masking and softmax as students write them with MyGrad alone, over ``axis``."""
    return (
        "    if mask is not None:\n"
        "        scores = mg.where(mask, scores, BLOCKED)\n"
        f"    weights = mg.nnet.softmax(scores, axis={axis})\n"
    )


REFERENCE_SCORES = 'scores = mg.einsum("tNk,TNk->tNT", q, k) / np.sqrt(np.float32(d_k))'


#: The reference's layer norm after the residual sum (each mean over the last axis as a matrix product) ...
REFERENCE_NORMALISE = (
    "        # Each mean over the last axis as a product with a column of 1/d: the same numbers, but NumPy's mean\n"
    "        # over rows of only d = 29 numbers is several times slower than a matrix product.\n"
    "        average = np.full((x.shape[-1], 1), 1 / x.shape[-1], dtype=np.float32)  # (d, 1)\n"
    "        centred = x - mg.matmul(x, average)\n"
    "        variance = mg.matmul(centred * centred, average)  # (..., 1)\n"
    "        return self.gain * centred / mg.sqrt(variance + EPS) + self.bias"
)

#: ... and as the task's formula reads, the form students write; the layer-norm mistakes below replace the
#: reference's lines by these with one thing wrong.
FORMULA_NORMALISE = (
    "        centred = x - x.mean(axis=-1, keepdims=True)\n"
    "        return self.gain * centred / mg.sqrt(x.var(axis=-1, keepdims=True) + EPS) + self.bias"
)


def _normalise_with(right, wrong):
    """The formula's layer norm with ``right`` (which must occur once) written as ``wrong``."""
    assert FORMULA_NORMALISE.count(right) == 1, right
    return FORMULA_NORMALISE.replace(right, wrong)


MISTAKES = [
    # --- Part A: cipher, then decipher -----------------------------------------
    Mistake(
        task="cipher",
        name="key_not_repeated",
        why="Zips the message with the key itself, so the cipher text stops where the key ends.",
        replace="for p, k in zip(plaintext, repeated)",
        by="for p, k in zip(plaintext, key)",
        expect="repeat the key along the whole message",
    ),
    Mistake(
        task="cipher",
        name="shifted_the_wrong_way",
        why="Encrypts by subtracting the key instead of adding it.",
        replace="ALPHABET.index(p) + ALPHABET.index(k)",
        by="ALPHABET.index(p) - ALPHABET.index(k)",
        expect="add the key's shift to encrypt",
    ),
    Mistake(
        task="cipher",
        name="modulo_26",
        why="Wraps around after z, as for a 26-letter alphabet, so the space is never produced.",
        replace="(ALPHABET.index(p) + ALPHABET.index(k)) % len(ALPHABET)",
        by="(ALPHABET.index(p) + ALPHABET.index(k)) % 26",
        expect="modulo 27",
    ),
    Mistake(
        task="decipher",
        name="decipher_adds",
        why="Deciphers by adding the key again instead of subtracting it.",
        replace="ALPHABET.index(c) - ALPHABET.index(k)",
        by="ALPHABET.index(c) + ALPHABET.index(k)",
        expect="subtract it to undo cipher",
    ),
    Mistake(
        task="decipher",
        name="decipher_key_not_repeated",
        why="Zips the cipher text with the key itself, so the plain text stops where the key ends.",
        replace="for c, k in zip(ciphertext, repeated)",
        by="for c, k in zip(ciphertext, key)",
        expect="repeat the key along the whole message",
    ),
    Mistake(
        task="decipher",
        name="decipher_modulo_26",
        why="Wraps around below a as for a 26-letter alphabet, so the space is never produced.",
        replace="(ALPHABET.index(c) - ALPHABET.index(k)) % len(ALPHABET)",
        by="(ALPHABET.index(c) - ALPHABET.index(k)) % 26",
        expect="modulo 27",
    ),
    # --- Part B: one-hot vectors ---------------------------------------------
    Mistake(
        task="one_hot",
        name="start_token_is_end",
        why="Opens the sequence with the END token instead of START.",
        replace="tokens = [START] + tokens",
        by="tokens = [END] + tokens",
        expect="START (27) opens the sequence",
    ),
    Mistake(
        task="one_hot",
        name="end_token_first",
        why="Puts the END token in front of the text instead of after it.",
        replace="tokens = tokens + [END]",
        by="tokens = [END] + tokens",
        expect="END (28) comes after the text",
    ),
    Mistake(
        task="one_hot",
        name="float64_vectors",
        why="Leaves np.zeros at its default float64, which doubles the cost of every layer.",
        replace="np.zeros((len(tokens), N_SYMBOLS), dtype=np.float32)",
        by="np.zeros((len(tokens), N_SYMBOLS))",
        expect="expected float32",
    ),
    Mistake(
        task="one_hot",
        name="unnamed_foreign_characters",
        why="Looks symbols up with str.index, whose error does not name the offending characters.",
        replace="tokens = tokens_of(text)",
        by="tokens = [ALPHABET.index(c) for c in text]",
        expect="should name 'H' and '!'",
    ),
    # --- Part C: scaled dot-product attention (one head) -----------------------
    Mistake(
        task="attention",
        name="missing_scale",
        why="Forgets to divide the scores by sqrt(d_k).",
        replace=REFERENCE_SCORES,
        by='scores = mg.einsum("tNk,TNk->tNT", q, k)',
        expect="not divided by sqrt(d_k)",
    ),
    Mistake(
        task="attention",
        name="scaled_by_d_k",
        why="Divides the scores by d_k instead of its square root.",
        replace=REFERENCE_SCORES,
        by='scores = mg.einsum("tNk,TNk->tNT", q, k) / np.float32(d_k)',
        expect="divide by its square root",
    ),
    Mistake(
        task="attention",
        name="float64_scale",
        why="Divides by np.sqrt(d_k), a float64, which turns the whole model into float64.",
        replace="np.sqrt(np.float32(d_k))",
        by="np.sqrt(d_k)",
        expect="a float64 constant crept in",
    ),
    Mistake(
        task="attention",
        name="softmax_over_queries",
        why="Takes the softmax over the query axis instead of the key axis.",
        replace=REFERENCE_WEIGHING,
        by=_weighing(0),
        expect="take the softmax over the keys",
    ),
    Mistake(
        task="attention",
        name="softmax_over_batch",
        why="Takes the softmax over the batch axis instead of the key axis.",
        replace=REFERENCE_WEIGHING,
        by=_weighing(1),
        expect="take the softmax over the keys",
    ),
    Mistake(
        task="attention",
        name="mask_after_softmax",
        why="Zeroes the masked weights after the softmax, so the rows no longer sum to one.",
        replace=REFERENCE_WEIGHING,
        by=(
            "    weights = mg.nnet.softmax(scores, axis=-1)\n"
            "    if mask is not None:\n"
            "        weights = mg.where(mask, weights, np.float32(0))\n"
        ),
        expect="mask the scores before the softmax",
    ),
    Mistake(
        task="attention",
        name="mask_transposed",
        why="Swaps the mask's query and key axes, so query i is masked by key i's column.",
        replace="mask=mask)",
        by="mask=None if mask is None else mask.transpose(2, 1, 0))",
        expect="mask[i, n, j] is about query i",
    ),
    Mistake(
        task="attention",
        name="mask_ignored",
        why="Never uses the mask, so padding and future positions get weight.",
        replace="mask=mask)",
        by="mask=None)",
        expect="a pair the mask hides got a non-zero weight",
    ),
    Mistake(
        task="attention",
        name="first_sequence_mask_for_all",
        why="Applies the first sequence's mask to every sequence of the batch.",
        replace="mask=mask)",
        by="mask=None if mask is None else mask[:, :1])",
        expect="sequence n has its own mask[:, n, :]",
    ),
    Mistake(
        task="attention",
        name="query_detached",
        why="Scores with q.data, a NumPy array, which cuts the queries (and Wq behind them) out of the graph.",
        replace=REFERENCE_SCORES,
        by='scores = mg.einsum("tNk,TNk->tNT", mg.asarray(q), k) / np.sqrt(np.float32(d_k))',
        expect="q got no gradient",
    ),
    # --- Part C: multi-head attention ----------------------------------------
    Mistake(
        task="multihead_attention",
        name="mask_tiled_across_heads",
        why="Folds the mask with np.tile, so the heads of one sequence get the masks of other sequences.",
        replace="mask = np.repeat(mask, h, axis=1)",
        by="mask = np.tile(mask, (1, h, 1))",
        expect="every head of sequence n uses mask[:, n, :]",
    ),
    Mistake(
        task="multihead_attention",
        name="mask_not_passed_on",
        why="Folds the mask but calls the single head without it, so no pair is ever masked.",
        replace="mixed, weights = scaled_dot_product_attention(q, k, v, mask)",
        by="mixed, weights = scaled_dot_product_attention(q, k, v)",
        expect="a pair the mask hides got a non-zero weight",
    ),
    Mistake(
        task="multihead_attention",
        name="heads_joined_in_wrong_order",
        why="Moves the head axis last before flattening, interleaving the heads' numbers.",
        replace="return self.Wo(mixed.reshape(t, N, h * d_k))",
        by="return self.Wo(mixed.reshape(t, N, h, d_k).transpose(0, 1, 3, 2).reshape(t, N, h * d_k))",
        expect="head 0's d_k numbers first",
    ),
    Mistake(
        task="multihead_attention",
        name="query_weights_detached",
        why="Projects the queries with Wq.data, a NumPy array, which cuts Wq out of the graph: it never learns.",
        replace='q = mg.einsum("tNd,hdk->tNhk", Q, self.Wq)',
        by='q = mg.einsum("tNd,hdk->tNhk", Q, self.Wq.data)',
        expect="Wq got no gradient",
    ),
    Mistake(
        task="multihead_attention",
        name="weights_kept_folded",
        why="Keeps the folded weights (t, N*h, T) as a_ij instead of unfolding them to (t, N, h, T).",
        replace="self.a_ij = weights.reshape(t, N, h, T)",
        by="self.a_ij = weights",
        expect="a_ij has shape",
    ),
    # --- Part E: residual connection and layer norm --------------------------
    Mistake(
        task="add_and_norm",
        name="residual_dropped",
        why="Normalises the sub-layer's output alone, without adding its input.",
        replace="x = x_old + x_new",
        by="x = x_new",
        expect="add the residual first",
    ),
    Mistake(
        task="add_and_norm",
        name="normalised_over_time",
        why="Takes the mean and variance over the time axis instead of the features.",
        replace=REFERENCE_NORMALISE,
        by=_normalise_with(
            "centred = x - x.mean(axis=-1, keepdims=True)\n"
            "        return self.gain * centred / mg.sqrt(x.var(axis=-1, keepdims=True) + EPS)",
            "centred = x - x.mean(axis=0, keepdims=True)\n"
            "        return self.gain * centred / mg.sqrt(x.var(axis=0, keepdims=True) + EPS)",
        ),
        expect="the last axis (axis=-1)",
    ),
    Mistake(
        task="add_and_norm",
        name="divides_by_variance",
        why="Divides by the variance instead of the standard deviation.",
        replace=REFERENCE_NORMALISE,
        by=_normalise_with("mg.sqrt(x.var(axis=-1, keepdims=True) + EPS)", "(x.var(axis=-1, keepdims=True) + EPS)"),
        expect="divide by the standard deviation",
    ),
    Mistake(
        task="add_and_norm",
        name="python_float_epsilon",
        why="Adds epsilon as a Python float, which makes the output float64.",
        replace=REFERENCE_NORMALISE,
        by=_normalise_with("+ EPS)", "+ 1e-5)"),
        expect="use float32 constants",
    ),
    Mistake(
        task="add_and_norm",
        name="epsilon_subtracted",
        why="Subtracts epsilon from the variance, so a constant vector gives the square root of a negative number.",
        replace=REFERENCE_NORMALISE,
        by=_normalise_with("x.var(axis=-1, keepdims=True) + EPS", "x.var(axis=-1, keepdims=True) - EPS"),
        expect="is epsilon added to the variance",
    ),
    Mistake(
        task="add_and_norm",
        name="epsilon_outside_the_root",
        why="Adds epsilon to the standard deviation instead of to the variance under the square root.",
        replace=REFERENCE_NORMALISE,
        by=_normalise_with(
            "mg.sqrt(x.var(axis=-1, keepdims=True) + EPS)", "(mg.sqrt(x.var(axis=-1, keepdims=True)) + EPS)"
        ),
        expect="epsilon goes inside the square root",
    ),
    Mistake(
        task="add_and_norm",
        name="gain_detached",
        why="Scales by gain.data, a NumPy array, so the gain gets no gradient and never learns.",
        replace=REFERENCE_NORMALISE,
        by=_normalise_with("return self.gain * centred", "return self.gain.data * centred"),
        expect="gain got no gradient",
    ),
    Mistake(
        task="add_and_norm",
        name="mean_without_keepdims",
        why=(
            "Takes the mean and the variance without keepdims=True: "
            "right for one vector, a broadcast error for a batch."
        ),
        replace=REFERENCE_NORMALISE,
        by=FORMULA_NORMALISE.replace(", keepdims=True", ""),
        expect="keep the last axis in the mean and the variance (keepdims=True)",
    ),
    # --- Part F: feed-forward network, then the encoder layer -----------------
    Mistake(
        task="feed_forward",
        name="relu_missing",
        why="Chains the two dense layers without the ReLU, so the network is linear.",
        replace="return self.dense2(relu(self.dense1(x)))",
        by="return self.dense2(self.dense1(x))",
        expect="put the ReLU between the two layers",
    ),
    Mistake(
        task="feed_forward",
        name="relu_after_the_output",
        why="Applies the ReLU to the output of the second layer instead of between the two.",
        replace="return self.dense2(relu(self.dense1(x)))",
        by="return relu(self.dense2(self.dense1(x)))",
        expect="the ReLU came after dense2",
    ),
    Mistake(
        task="feed_forward",
        name="first_layer_without_bias",
        why="Builds the first dense layer without its bias b1.",
        replace="self.dense1 = dense(in_dim, h_dim, weight_initializer=glorot_normal)",
        by="self.dense1 = dense(in_dim, h_dim, weight_initializer=glorot_normal, bias=False)",
        expect="each with a bias",
    ),
    Mistake(
        task="feed_forward",
        name="output_back_to_input_width",
        why="Maps the hidden units back to in_dim instead of out_dim.",
        replace="self.dense2 = dense(h_dim, out_dim, weight_initializer=glorot_normal)",
        by="self.dense2 = dense(h_dim, in_dim, weight_initializer=glorot_normal)",
        expect="-> out_dim 2",
    ),
    Mistake(
        task="encoder",
        name="feed_forward_reads_source",
        why="Feeds the raw source to the feed-forward network instead of the first add & norm.",
        replace="return self.add_norm2(x1, self.ff(x1))",
        by="return self.add_norm2(x1, self.ff(src))",
        expect="the feed-forward network read the source src",
    ),
    Mistake(
        task="encoder",
        name="second_residual_from_source",
        why="Adds the layer's input instead of X1 in the second residual connection.",
        replace="return self.add_norm2(x1, self.ff(x1))",
        by="return self.add_norm2(src, self.ff(x1))",
        expect="the second add & norm added the source src",
    ),
    Mistake(
        task="encoder",
        name="one_norm_for_both",
        why="Uses the first add & norm (and its gain and bias) for both sub-layers.",
        replace="return self.add_norm2(x1, self.ff(x1))",
        by="return self.add_norm1(x1, self.ff(x1))",
        expect="add_norm1 served both sub-layers",
    ),
    Mistake(
        task="encoder",
        name="mask_not_passed",
        why="Calls self-attention without the mask, so real positions read the padding.",
        replace="self.self_attn(src, src, src, mask=mask)",
        by="self.self_attn(src, src, src)",
        expect="pass the mask to self-attention",
    ),
    # --- Part D: masks (padding_mask, then causal_mask) -------------------------
    Mistake(
        task="masks",
        name="lengths_must_be_an_array",
        why="Indexes lengths as an array, so a list of lengths (as callers pass them) raises a TypeError.",
        replace="real = np.arange(T)[None, :] < np.asarray(lengths)[:, None]",
        by="real = np.arange(T)[None, :] < lengths[:, None]",
        expect="padding_mask fails on lengths given as a list",
    ),
    Mistake(
        task="masks",
        name="padding_on_query_axis",
        why="Marks padded queries instead of padded keys, so real queries still read the padding.",
        replace="return np.broadcast_to(real, (t, *real.shape)).copy()",
        by=(
            "return np.broadcast_to((np.arange(t)[:, None] < np.asarray(lengths))[:, :, None], "
            "(t, len(lengths), T)).copy()"
        ),
        expect="never on the query i",
    ),
    Mistake(
        task="masks",
        name="padding_off_by_one",
        why="Counts key lengths[n] as real too, so every sequence reads one padded position.",
        replace="real = np.arange(T)[None, :] < np.asarray(lengths)[:, None]",
        by="real = np.arange(T)[None, :] <= np.asarray(lengths)[:, None]",
        expect="the real keys are j < lengths[n]",
    ),
    Mistake(
        task="masks",
        name="longest_length_for_all",
        why="Uses the longest sequence's length for the whole batch, so shorter ones read padding.",
        replace="real = np.arange(T)[None, :] < np.asarray(lengths)[:, None]",
        by="real = np.broadcast_to(np.arange(T)[None, :] < max(lengths), (len(lengths), T))",
        expect="use each sequence's own lengths[n]",
    ),
    Mistake(
        task="causal_mask",
        name="causal_without_padding",
        why="Returns the causal pattern for every sequence and forgets the padding.",
        replace="return earlier[:, None, :] & padding_mask(lengths, t, t)",
        by="return np.broadcast_to(earlier[:, None, :], (t, len(lengths), t)).copy()",
        expect="combine the causal pattern with padding_mask",
    ),
    Mistake(
        task="causal_mask",
        name="causal_transposed",
        why="Builds the causal pattern with triu, letting positions see the future and not the past.",
        replace="earlier = np.tril(np.ones((t, t), dtype=bool))",
        by="earlier = np.triu(np.ones((t, t), dtype=bool))",
        expect="reads the later positions and not the earlier ones",
    ),
    Mistake(
        task="causal_mask",
        name="diagonal_blocked",
        why="Shifts the causal pattern by one so a position cannot read its own input.",
        replace="earlier = np.tril(np.ones((t, t), dtype=bool))",
        by="earlier = np.tril(np.ones((t, t), dtype=bool), k=-1)",
        expect="the diagonal stays open",
    ),
    Mistake(
        task="causal_mask",
        name="future_allowed",
        why="Shifts the causal pattern the other way, so each position sees the next one.",
        replace="earlier = np.tril(np.ones((t, t), dtype=bool))",
        by="earlier = np.tril(np.ones((t, t), dtype=bool), k=1)",
        expect="a position reads a later position",
    ),
    # --- Part G: decoder layer -------------------------------------------------
    Mistake(
        task="decoder",
        name="self_attention_unmasked",
        why="Forgets to pass the mask to the decoder's self-attention.",
        replace="self.self_attn(tgt, tgt, tgt, mask=self_mask)",
        by="self.self_attn(tgt, tgt, tgt)",
        expect="the self-attention needs self_mask",
    ),
    Mistake(
        task="decoder",
        name="no_causal_default",
        why="Leaves self_mask as None when the caller passes none, so the decoder sees the future.",
        replace="            self_mask = causal_mask(np.full(N, t), t)\n",
        by="            pass\n",
        expect="causal_mask for unpadded inputs when none is given",
    ),
    Mistake(
        task="decoder",
        name="cross_attention_unmasked",
        why="Forgets the source's padding mask in the encoder-decoder attention.",
        replace="self.enc_dec_attn(x1, enc_out, enc_out, mask=cross_mask)",
        by="self.enc_dec_attn(x1, enc_out, enc_out)",
        expect="pass cross_mask to the cross-attention",
    ),
    Mistake(
        task="decoder",
        name="cross_attention_queries_from_encoder",
        why="Swaps the roles: the encoder output queries the decoder, not the other way round.",
        replace="self.enc_dec_attn(x1, enc_out, enc_out, mask=cross_mask)",
        by="self.enc_dec_attn(enc_out, x1, x1)",
        expect="the cross-attention's queries came from enc_out",
    ),
    Mistake(
        task="decoder",
        name="cross_attention_residual_from_target",
        why="Adds the decoder input instead of X1 around the encoder-decoder attention.",
        replace="x2 = self.add_norm2(x1,",
        by="x2 = self.add_norm2(tgt,",
        expect="the cross-attention's add & norm added the decoder input tgt",
    ),
    # --- Part H: positional encoding -------------------------------------------
    Mistake(
        task="positional_encoding",
        name="sin_cos_swapped",
        why="Puts cosines on the even dimensions and sines on the odd ones.",
        replace=("encoding[:, 0::2] = np.sin(angle)\n        encoding[:, 1::2] = np.cos(angle[:, : self.dim // 2])"),
        by=("encoding[:, 0::2] = np.cos(angle)\n        encoding[:, 1::2] = np.sin(angle[:, : self.dim // 2])"),
        expect="sines and cosines are swapped",
    ),
    Mistake(
        task="positional_encoding",
        name="exponent_i_instead_of_2i",
        why="Uses 10000^(i/d) with the pair's number i instead of 10000^(2i/d).",
        replace="np.arange(0, self.dim, 2, dtype=np.float32)",
        by="np.arange((self.dim + 1) // 2, dtype=np.float32)",
        expect="not i/d",
    ),
    Mistake(
        task="positional_encoding",
        name="positions_start_at_one",
        why="Numbers the positions from 1 instead of 0.",
        replace="np.arange(seq_len, dtype=np.float32)",
        by="np.arange(1, seq_len + 1, dtype=np.float32)",
        expect="count positions from 0",
    ),
    Mistake(
        task="positional_encoding",
        name="base_1000",
        why="Uses 1000 instead of 10000 as the base of the rates.",
        replace="np.float32(10000)",
        by="np.float32(1000)",
        expect="the base of the rates is 10000",
    ),
    Mistake(
        task="positional_encoding",
        name="rates_multiply",
        why="Multiplies the positions by 10000^(2i/d) instead of dividing by it.",
        replace="** (-even / np.float32(self.dim))",
        by="** (even / np.float32(self.dim))",
        expect="do not multiply",
    ),
    Mistake(
        task="positional_encoding",
        name="float64_encoding",
        why="Builds the encoding in float64, which turns the model's inputs into float64.",
        replace="np.empty((seq_len, self.dim), dtype=np.float32)",
        by="np.empty((seq_len, self.dim))",
        expect="expected float32",
    ),
    Mistake(
        task="positional_encoding",
        name="float64_angles",
        why="Numbers the positions with int64, so the angles come out float64.",
        replace="position = np.arange(seq_len, dtype=np.float32)[:, None]",
        by="position = np.arange(seq_len)[:, None]",
        expect="expected float32",
    ),
    Mistake(
        task="positional_encoding",
        name="odd_width_breaks",
        why="Gives the cosines as many angles as the sines, which fails for an odd width.",
        replace="np.cos(angle[:, : self.dim // 2])",
        by="np.cos(angle)",
        expect="the cosines take only the first d // 2 angles",
    ),
    Mistake(
        task="positional_encoding",
        name="angles_not_used",
        why=(
            "Computes the angles again inside __call__ instead of calling self.angles, "
            "so a subclass cannot change them."
        ),
        replace="angle = self.angles(seq_len)  # (T, ceil(d / 2))",
        by=(
            "angle = np.arange(seq_len, dtype=np.float32)[:, None] * np.float32(10000) ** "
            "(-np.arange(0, self.dim, 2, dtype=np.float32) / np.float32(self.dim))"
        ),
        expect="take its angles from self.angles",
    ),
    # --- Part I: Transformer ---------------------------------------------------
    Mistake(
        task="transformer",
        name="target_without_position",
        why="Adds the positional encoding to the source only, not to the decoder input.",
        replace="y = tgt + self.pos_enc(t)",
        by="y = tgt",
        expect="the decoder input got no positional encoding",
    ),
    Mistake(
        task="transformer",
        name="encoder_layers_not_chained",
        why="Gives every encoder layer the encoded source instead of the previous layer's output.",
        replace="            x = layer(x, mask)\n        return x",
        by="            out = layer(x, mask)\n        return out",
        expect="chain them",
    ),
    Mistake(
        task="transformer",
        name="decoder_reads_itself",
        why="Passes the decoder's own state where the encoder output belongs.",
        replace="y = layer(enc_out, y, self_mask, cross_mask)",
        by="y = layer(y, y, self_mask, self_mask)",
        expect="give every decoder layer E",
    ),
    Mistake(
        task="transformer",
        name="output_layer_not_in_parameters",
        why="Leaves the output layer out of parameters, so it is never trained or saved.",
        replace="[*self.enc_layers, *self.dec_layers, self.out_dense]",
        by="[*self.enc_layers, *self.dec_layers]",
        expect="the output layer's weight 0 and bias 1",
    ),
    Mistake(
        task="transformer",
        name="output_layer_without_bias",
        why="Builds the output layer without its bias, unlike the documented layer.",
        replace="self.out_dense = dense(dim, dim, weight_initializer=glorot_normal)",
        by="self.out_dense = dense(dim, dim, weight_initializer=glorot_normal, bias=False)",
        expect="out_dense.bias should exist",
    ),
    Mistake(
        task="transformer",
        name="encoder_ignores_lengths",
        why="Runs the encoder layers without the padding mask.",
        replace="            x = layer(x, mask)\n",
        by="            x = layer(x)\n",
        expect="build the masks from src_lengths and tgt_lengths",
    ),
    Mistake(
        task="transformer",
        name="cross_mask_from_target_lengths",
        why="Builds the encoder-decoder mask from the decoder's lengths instead of the source's.",
        replace="padding_mask(src_lengths, t, T)",
        by="padding_mask(np.minimum(tgt_lengths, T), t, T)",
        expect="from the source's lengths",
    ),
    Mistake(
        task="transformer",
        name="decoder_without_masks",
        why="Builds the masks but calls the decoder layers without them.",
        replace="y = layer(enc_out, y, self_mask, cross_mask)",
        by="y = layer(enc_out, y)",
        expect="build the masks from src_lengths and tgt_lengths",
    ),
    # --- Part J: masked loss -------------------------------------------------
    Mistake(
        task="loss",
        name="padding_counted",
        why="Averages the cross-entropy over every position, padding included.",
        replace="return softmax_crossentropy(scores[real], target[real])",
        by="return softmax_crossentropy(scores.reshape(-1, scores.shape[-1]), target.reshape(-1))",
        expect="counts the padded position",
    ),
    Mistake(
        task="loss",
        name="mean_over_all_positions",
        why="Sums the loss over real positions but divides by all t * N positions.",
        replace="return softmax_crossentropy(scores[real], target[real])",
        by="return softmax_crossentropy(scores[real], target[real]) * np.float32(real.sum() / real.size)",
        expect="divided by all t * N = 4 positions",
    ),
    Mistake(
        task="loss",
        name="end_not_counted",
        why="Takes lengths - 1 real positions, so the END token is never learned.",
        replace="np.arange(target.shape[0])[:, None] < np.asarray(lengths)[None, :]",
        by="np.arange(target.shape[0])[:, None] < np.asarray(lengths)[None, :] - 1",
        expect="its last real position",
    ),
    Mistake(
        task="loss",
        name="padding_scores_zeroed",
        why="Zeroes the scores at padded positions, which still counts them (as uniform guesses).",
        replace="return softmax_crossentropy(scores[real], target[real])",
        by="return softmax_crossentropy((scores * real[..., None]).reshape(-1, scores.shape[-1]), target.reshape(-1))",
        expect="as a uniform guess",
    ),
    Mistake(
        task="loss",
        name="loss_on_detached_scores",
        why="Takes the cross-entropy of scores.data, so no gradient reaches the model.",
        replace="return softmax_crossentropy(scores[real], target[real])",
        by="return softmax_crossentropy(scores.data[real], target[real])",
        expect="scores.grad is None",
    ),
    # --- Part K: greedy decoding ---------------------------------------------
    Mistake(
        task="greedy",
        name="reads_first_position",
        why="Takes the scores at the first decoder position instead of the last.",
        replace="scores.data[-1, :, : len(ALPHABET)]",
        by="scores.data[0, :, : len(ALPHABET)]",
        expect="the next symbol's scores are at the last position",
    ),
    Mistake(
        task="greedy",
        name="end_token_allowed",
        why=(
            "Takes the argmax over all 29 tokens, so START and END can win, "
            "though the plain text has only alphabet symbols."
        ),
        replace="scores.data[-1, :, : len(ALPHABET)]",
        by="scores.data[-1]",
        expect="pick only among them",
    ),
    Mistake(
        task="greedy",
        name="start_token_allowed",
        why="Leaves out END but not START, so the argmax runs over 28 tokens and START can win.",
        replace="scores.data[-1, :, : len(ALPHABET)]",
        by="scores.data[-1, :, :END]",
        expect="pick only among them",
    ),
    Mistake(
        task="greedy",
        name="space_never_picked",
        why="Cuts the scores one symbol short, so the space (token 26) can never be picked.",
        replace="scores.data[-1, :, : len(ALPHABET)]",
        by="scores.data[-1, :, : len(ALPHABET) - 1]",
        expect="the space included",
    ),
    Mistake(
        task="greedy",
        name="one_step_short",
        why="Runs T - 2 steps, so the last symbol is never written.",
        replace="for i in range(T - 1):",
        by="for i in range(T - 2):",
        expect="decode T - 1 = 6 symbols",
    ),
    Mistake(
        task="greedy",
        name="encoder_rerun_every_step",
        why="Calls the whole model at every step, re-running the encoder T - 1 times.",
        replace="scores = model.decode(enc_out, decoder_input[: i + 1], lengths)",
        by="scores = model(source, decoder_input[: i + 1], lengths)",
        expect="expected one encoder run",
    ),
    Mistake(
        task="greedy",
        name="choices_not_fed_back",
        why="Never writes the chosen symbols into the decoder input.",
        replace="decoder_input[i + 1, np.arange(N), tokens[i]] = 1",
        by="pass",
        expect="write each picked symbol's one-hot vector",
    ),
    Mistake(
        task="greedy",
        name="lengths_ignored",
        why="Encodes and decodes a padded batch without its lengths, so short messages read padding.",
        replace="        enc_out = model.encode(source, lengths)\n",
        by="        enc_out = model.encode(source)\n",
        expect="pass the lengths to model.encode",
    ),
]
