"""Wrong answers to the tasks of 03_attention, each of which must lose points."""

from instructor.authoring.mistakes import Mistake

#: The reference's attend body (one einsum each for the scores and the context) ...
REFERENCE_ATTEND = """    # The table's multiply-and-sum, each as one einsum (fewer, faster operations on the way back).
    # Label s is h_t's axis of size 1: the scores keep it, (T, 1, N), so the context comes out (1, N, D).
    e_t = mg.einsum("tnd,snd->tsn", enc_proj, h_t)  # one score per encoder step and sequence
    weights = mg.nnet.softmax(e_t, axis=0)  # normalise over the T encoder steps
    c_t = mg.einsum("tsn,tnd->snd", weights, enc_h)  # weighted average of the encoder states: (1, N, D)
    return c_t, weights.reshape(e_t.shape[0], e_t.shape[2])  # the weights as (T, N)"""

#: ... and the same steps as the task's table spells them, the form students write; each attend mistake
#: below replaces the reference's body by this one with one thing wrong.
TABLE_ATTEND = """    e_t = (enc_proj * h_t).sum(axis=-1)
    a_t = mg.nnet.softmax(e_t, axis=0)
    c_t = (a_t[:, :, np.newaxis] * enc_h).sum(axis=0, keepdims=True)
    return c_t, a_t"""


def attend_with(right: str, wrong: str) -> str:
    """The table's attend body with ``right`` (which must occur once) written as ``wrong``."""
    assert TABLE_ATTEND.count(right) == 1, right
    return TABLE_ATTEND.replace(right, wrong)


MISTAKES = [
    # ------------------------------------------------------------------- attend
    Mistake(
        task="attend",
        name="softmax_over_batch_axis",
        why="Normalises the scores over the N sequences of the batch instead of the T encoder steps.",
        replace=REFERENCE_ATTEND,
        by=attend_with("a_t = mg.nnet.softmax(e_t, axis=0)", "a_t = mg.nnet.softmax(e_t, axis=1)"),
        expect="take the softmax over axis 0",
    ),
    Mistake(
        task="attend",
        name="softmax_default_axis",
        why="Relies on softmax's default axis (-1), which for (T, N) scores is the batch axis.",
        replace=REFERENCE_ATTEND,
        by=attend_with("a_t = mg.nnet.softmax(e_t, axis=0)", "a_t = mg.nnet.softmax(e_t)"),
        expect="not over the batch axis",
    ),
    Mistake(
        task="attend",
        name="softmax_over_features",
        why="Takes the softmax over the D features before summing, so the weights do not compare encoder steps.",
        replace=REFERENCE_ATTEND,
        by=attend_with(
            "e_t = (enc_proj * h_t).sum(axis=-1)",
            "e_t = mg.nnet.softmax(enc_proj * h_t, axis=-1).sum(axis=-1)",
        ),
        expect="summed over the D features",
    ),
    Mistake(
        task="attend",
        name="scores_without_W_alpha",
        why="Scores the raw encoder states against the decoder state and ignores enc_proj = H^e W_alpha.",
        replace=REFERENCE_ATTEND,
        by=attend_with("e_t = (enc_proj * h_t).sum(axis=-1)", "e_t = (enc_h * h_t).sum(axis=-1)"),
        expect="enc_proj (not enc_h)",
    ),
    Mistake(
        task="attend",
        name="context_summed_over_batch",
        why="Sums the weighted states over the batch axis instead of the encoder steps.",
        replace=REFERENCE_ATTEND,
        by=attend_with(
            "(a_t[:, :, np.newaxis] * enc_h).sum(axis=0, keepdims=True)",
            "(a_t[:, :, np.newaxis] * enc_h).sum(axis=1, keepdims=True)",
        ),
        expect="sum over the encoder steps (axis 0)",
    ),
    Mistake(
        task="attend",
        name="context_from_projected_states",
        why="Averages the projected states H^e W_alpha instead of the encoder states themselves.",
        replace=REFERENCE_ATTEND,
        by=attend_with(
            "(a_t[:, :, np.newaxis] * enc_h).sum(axis=0, keepdims=True)",
            "(a_t[:, :, np.newaxis] * enc_proj).sum(axis=0, keepdims=True)",
        ),
        expect="enc_h (not enc_proj)",
    ),
    Mistake(
        task="attend",
        name="context_not_weighted",
        why="Averages the encoder states with equal weights, ignoring the attention weights.",
        replace=REFERENCE_ATTEND,
        by=attend_with(
            "(a_t[:, :, np.newaxis] * enc_h).sum(axis=0, keepdims=True)",
            "enc_h.mean(axis=0, keepdims=True)",
        ),
        expect="sums the weights times the encoder states",
    ),
    Mistake(
        task="attend",
        name="weights_detached",
        why="Builds the context from the weights' NumPy data, so no gradient reaches W_alpha or the decoder.",
        replace=REFERENCE_ATTEND,
        by=attend_with("(a_t[:, :, np.newaxis] * enc_h)", "(a_t.data[:, :, np.newaxis] * enc_h)"),
        expect="cut MyGrad's graph",
    ),
    Mistake(
        task="attend",
        name="float64_through_astype",
        why="Computes in float64 through .astype, which returns a new tensor outside MyGrad's graph: the values "
        "are right, but no gradient reaches the inputs.",
        replace=REFERENCE_ATTEND,
        by="""    e_t = (enc_proj.astype(np.float64) * h_t.astype(np.float64)).sum(axis=-1)
    a_t = mg.nnet.softmax(e_t, axis=0)
    c_t = (a_t[:, :, np.newaxis] * enc_h.astype(np.float64)).sum(axis=0, keepdims=True)
    return c_t.astype(np.float32), a_t.astype(np.float32)""",
        expect="cut MyGrad's graph",
    ),
    # -------------------------------------------------------- attention_seq2seq
    Mistake(
        task="attention_seq2seq",
        name="W_alpha_on_decoder_state",
        why="Applies W_alpha to the decoder state at every step instead of once to the encoder states.",
        replace="c_t, a_t = attend(enc_proj, enc_h, h)",
        by="c_t, a_t = attend(enc_h, enc_h, self.W_alpha(h))",
        expect="apply it once",
    ),
    Mistake(
        task="attention_seq2seq",
        name="W_alpha_with_bias",
        why="Gives W_alpha a bias, which the model does not have.",
        replace="weight_initializer=glorot_normal, bias=False)",
        by="weight_initializer=glorot_normal)",
        expect="W_alpha has no bias",
    ),
    Mistake(
        task="attention_seq2seq",
        name="concatenates_context_first",
        why=(
            "Concatenates [c_t, y_t] instead of [y_t, c_t], "
            "so the output layer reads each part with the other's weights."
        ),
        replace="mg.concatenate([y_t, c_t], axis=-1)",
        by="mg.concatenate([c_t, y_t], axis=-1)",
        expect="with y_t first",
    ),
    Mistake(
        task="attention_seq2seq",
        name="attends_with_previous_state",
        why="Attends with the decoder state from before this step's RNN update, h^d_{t-1}.",
        replace="""            y_t, h = self.decoder(s, h)  # (1, N, K) and the new state h^d_t, (1, N, D)
            c_t, a_t = attend(enc_proj, enc_h, h)  # (1, N, D) and (T, N)""",
        by="""            c_t, a_t = attend(enc_proj, enc_h, h)
            y_t, h = self.decoder(s, h)""",
        expect="after this step's update",
    ),
    Mistake(
        task="attention_seq2seq",
        name="returns_last_weights_only",
        why="Returns only the last decoder step's weights instead of all T of them.",
        replace="np.stack(weights)",
        by="weights[-1]",
        expect="along a new first axis",
    ),
    Mistake(
        task="attention_seq2seq",
        name="weights_stacked_on_batch_axis",
        why="Stacks the steps' weights along the last axis, giving (T, N, T) with the decoder step last.",
        replace="np.stack(weights)",
        by="np.stack(weights, axis=-1)",
        expect="along a new first axis",
    ),
    Mistake(
        task="attention_seq2seq",
        name="decoder_starts_from_zeros",
        why="Does not pass the encoder's last state to the decoder.",
        replace="h = enc_h[-1:]",
        by="h = None",
        expect="the encoder's last state",
    ),
    Mistake(
        task="attention_seq2seq",
        name="start_token_wrong_index",
        why="Uses index 0 for the start token instead of START_TOKEN (10).",
        replace="s[:, :, START_TOKEN] = 1",
        by="s[:, :, 0] = 1",
        expect="one-hot <S> (index 10)",
    ),
    Mistake(
        task="attention_seq2seq",
        name="feeds_back_decoder_scores",
        why="Feeds back the guess of the RNN's own scores y_t instead of the final scores that include the context.",
        replace="s = one_hot_encode_prediction(y_hat)",
        by="s = one_hot_encode_prediction(y_t)",
        expect="not of the RNN's own y_t",
    ),
    Mistake(
        task="attention_seq2seq",
        name="feeds_back_scores",
        why="Feeds the final scores back into the decoder instead of the one-hot vector of the guess.",
        replace="s = one_hot_encode_prediction(y_hat)",
        by="s = y_hat",
        expect="nor the scores themselves",
    ),
    Mistake(
        task="attention_seq2seq",
        name="returns_decoder_scores",
        why="Returns the decoder RNN's scores y_t instead of the final scores from the output layer.",
        replace="scores.append(y_hat)",
        by="scores.append(y_t)",
        expect="not the RNN's y_t",
    ),
    Mistake(
        task="attention_seq2seq",
        name="W_alpha_not_trained",
        why="Leaves W_alpha and the output layer out of the parameters, so the optimizer never updates them.",
        replace="""            + self.W_alpha.parameters
            + self.output_layer.parameters""",
        by="",
        expect="parameters must include those of",
    ),
    Mistake(
        task="attention_seq2seq",
        name="encoder_sizes_swapped",
        why="Builds the encoder as RNN(dim_output, D, dim_input): right only while C = K.",
        replace="self.encoder = RNN(dim_input, dim_recurrent, dim_output)",
        by="self.encoder = RNN(dim_output, dim_recurrent, dim_input)",
        expect="inputs with C = 7",
    ),
    Mistake(
        task="attention_seq2seq",
        name="decoder_shares_encoder",
        why="Uses the encoder itself as the decoder, so both share one set of weights.",
        replace="self.decoder = RNN(dim_output, dim_recurrent, dim_output)",
        by="self.decoder = self.encoder",
        expect="shares weights with the encoder",
    ),
]
