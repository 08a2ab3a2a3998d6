"""Wrong answers to the tasks of 02_seq2seq, each of which must lose points."""

from instructor.authoring.mistakes import Mistake

MISTAKES = [
    # ------------------------------------------------- one_hot_encode_prediction
    Mistake(
        task="one_hot_encode_prediction",
        name="argmax_over_batch_axis",
        why="Takes the arg-max over the N sequences instead of over the K classes.",
        replace="best = scores.argmax(axis=-1)",
        by="best = scores.argmax(axis=1)",
    ),
    Mistake(
        task="one_hot_encode_prediction",
        name="argmax_of_whole_array",
        why="Takes one arg-max of the flattened array, so one class wins for the whole batch.",
        replace="best = scores.argmax(axis=-1)",
        by="best = np.full(scores.shape[:-1], scores.argmax() % scores.shape[-1])",
    ),
    Mistake(
        task="one_hot_encode_prediction",
        name="float64_one_hot",
        why="Builds the one-hot array in NumPy's default float64.",
        replace="np.eye(scores.shape[-1], dtype=np.float32)[best]",
        by="np.eye(scores.shape[-1])[best]",
    ),
    Mistake(
        task="one_hot_encode_prediction",
        name="returns_tensor",
        why="Wraps the one-hot array in a MyGrad tensor instead of returning a NumPy array.",
        replace="return np.eye(scores.shape[-1], dtype=np.float32)[best]",
        by="return mg.tensor(np.eye(scores.shape[-1], dtype=np.float32)[best])",
    ),
    Mistake(
        task="one_hot_encode_prediction",
        name="identity_sized_by_batch",
        why="Sizes the identity matrix by the batch axis N instead of the number of classes K.",
        replace="np.eye(scores.shape[-1], dtype=np.float32)",
        by="np.eye(scores.shape[1], dtype=np.float32)",
    ),
    # ------------------------------------------------------------------ seq2seq
    Mistake(
        task="seq2seq",
        name="decoder_starts_from_first_encoder_state",
        why="Starts the decoder from the encoder's first state h^e_1 instead of its last state h^e_T.",
        replace="h = enc_h[-1:]",
        by="h = enc_h[:1]",
    ),
    Mistake(
        task="seq2seq",
        name="decoder_starts_from_zeros",
        why="Does not pass the encoder's state to the decoder, which then starts from zeros.",
        replace="h = enc_h[-1:]",
        by="h = None",
    ),
    Mistake(
        task="seq2seq",
        name="start_token_is_end_token",
        why="Marks index 11 (<E>) instead of 10 (<S>) in the first decoder input.",
        replace="s[:, :, START_TOKEN] = 1",
        by="s[:, :, END_TOKEN] = 1",
    ),
    Mistake(
        task="seq2seq",
        name="start_token_missing",
        why="Feeds the decoder an all-zero first input instead of the one-hot <S>.",
        replace="s[:, :, START_TOKEN] = 1",
        by="pass",
    ),
    Mistake(
        task="seq2seq",
        name="feeds_back_scores",
        why="Feeds the raw scores back into the decoder instead of the one-hot vector of its guess.",
        replace="s = one_hot_encode_prediction(y_t)",
        by="s = y_t",
    ),
    Mistake(
        task="seq2seq",
        name="feeds_back_start_token",
        why="Keeps feeding <S> at every step: the decoder never sees its own guesses.",
        replace="s = one_hot_encode_prediction(y_t)",
        by="pass",
    ),
    Mistake(
        task="seq2seq",
        name="state_not_carried",
        why="Restarts every decoder step from the encoder's state instead of the previous decoder state.",
        replace="y_t, h = self.decoder(s, h)",
        by="y_t, _ = self.decoder(s, h)",
    ),
    Mistake(
        task="seq2seq",
        name="encoder_parameters_missing",
        why="Lists only the decoder's parameters, so the encoder is never trained.",
        replace="return self.encoder.parameters + self.decoder.parameters",
        by="return self.decoder.parameters",
    ),
    Mistake(
        task="seq2seq",
        name="encoder_sizes_swapped",
        why="Builds the encoder as RNN(dim_output, D, dim_input): right only while C = K.",
        replace="self.encoder = RNN(dim_input, dim_recurrent, dim_output)",
        by="self.encoder = RNN(dim_output, dim_recurrent, dim_input)",
        expect="inputs with C = 7",
    ),
    Mistake(
        task="seq2seq",
        name="decoder_reads_C",
        why="Gives the decoder inputs of size C, though it reads one-hot guesses over the K classes.",
        replace="self.decoder = RNN(dim_output, dim_recurrent, dim_output)",
        by="self.decoder = RNN(dim_input, dim_recurrent, dim_output)",
        expect="inputs with C = 7",
    ),
    Mistake(
        task="seq2seq",
        name="decoder_shares_encoder",
        why="Uses the encoder itself as the decoder, so both share one set of weights.",
        replace="self.decoder = RNN(dim_output, dim_recurrent, dim_output)",
        by="self.decoder = self.encoder",
        expect="shares weights with the encoder",
    ),
]
