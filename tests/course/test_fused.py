"""course.fused: full-mode training on course.ops only where the student's own code agrees with it.

Each notebook's reference solution must get every stand-in; the mistakes students make (a missing eps, a
loss over the padding, a recurrence that forgets its state, an unfinished function) must each keep their own
code, named in one printed sentence; the stand-ins are in place only inside the ``with`` block, and the
trials leave NumPy's global generator where it was.
"""

from __future__ import annotations

import mygrad as mg
import numpy as np
import pytest

from course import fused, ops
from course.layers import dense
from instructor.authoring.library import load_library
from instructor.paths import SOLUTIONS


def _namespace(assignment: str) -> dict:
    return vars(load_library(assignment))  # a fresh module: its classes can be changed without touching others'


@pytest.mark.parametrize(
    "assignment, training, labels",
    [
        ("01_rnn", fused.rnn_training, ["`RNN.__call__`"]),
        ("03_attention", fused.attention_training, ["`attend`"]),
        ("04_transformer", fused.transformer_training, ["`ResidualConnectionAndLayerNorm.__call__`", "`masked_loss`"]),
    ],
)
def test_the_reference_solutions_train_on_every_stand_in(assignment, training, labels, capsys):
    chosen = training(_namespace(assignment))
    assert [s.label for s in chosen.used] == labels and not chosen.refused
    said = capsys.readouterr().out
    assert said.startswith("Training uses course.ops in place of your ") and all(label in said for label in labels)


def _norm_without_eps(self, x_old, x_new):
    x = x_old + x_new
    return self.gain * (x - x.mean(-1, keepdims=True)) / mg.sqrt(x.var(-1, keepdims=True)) + self.bias


def _norm_eps_outside(self, x_old, x_new):
    x = x_old + x_new
    return self.gain * (x - x.mean(-1, keepdims=True)) / (mg.sqrt(x.var(-1, keepdims=True)) + 1e-5) + self.bias


def _norm_without_residual(self, x_old, x_new):
    x = x_new
    return self.gain * (x - x.mean(-1, keepdims=True)) / mg.sqrt(x.var(-1, keepdims=True) + 1e-5) + self.bias


def _loss_over_padding(scores, target, lengths):
    return mg.nnet.softmax_crossentropy(scores.reshape(-1, scores.shape[-1]), target.reshape(-1))


def _loss_summed(scores, target, lengths):
    real = np.arange(target.shape[0])[:, None] < np.asarray(lengths)[None, :]
    return mg.nnet.softmax_crossentropy(scores[real], target[real]) * real.sum()


@pytest.mark.parametrize("norm", [_norm_without_eps, _norm_eps_outside, _norm_without_residual])
def test_a_wrong_layer_norm_keeps_the_students_own(norm, capsys):
    namespace = _namespace("04_transformer")
    namespace["ResidualConnectionAndLayerNorm"].__call__ = norm
    chosen = fused.transformer_training(namespace)
    assert [s.label for s in chosen.used] == ["`masked_loss`"]
    said = capsys.readouterr().out
    assert (
        "Training runs your own `ResidualConnectionAndLayerNorm.__call__`, more slowly: course.ops's version "
        "gives other values or gradients on random inputs." in said
    )


@pytest.mark.parametrize("loss", [_loss_over_padding, _loss_summed])
def test_a_wrong_loss_keeps_the_students_own(loss):
    namespace = _namespace("04_transformer")
    namespace["masked_loss"] = loss
    chosen = fused.transformer_training(namespace, announce=False)
    assert list(chosen.refused) == ["`masked_loss`"] and len(chosen.used) == 1
    with chosen:
        assert namespace["masked_loss"] is loss


def _rnn_forgetting_its_state(self, x, h=None):
    x_part = self.input_layer(x)
    states = mg.stack([mg.tanh(x_part[t]) for t in range(x.shape[0])])
    return self.output_layer(states), states


def _unfinished(*args, **kwargs):
    raise NotImplementedError


def test_a_wrong_or_unfinished_rnn_keeps_the_students_own(capsys):
    namespace = _namespace("01_rnn")
    namespace["RNN"].__call__ = _rnn_forgetting_its_state
    assert fused.rnn_training(namespace).refused == {
        "`RNN.__call__`": "course.ops's version gives other values or gradients on random inputs"
    }
    namespace["RNN"].__call__ = _unfinished
    chosen = fused.rnn_training(namespace)
    assert chosen.refused == {"`RNN.__call__`": "on random inputs it raised NotImplementedError"}
    assert "Training runs your own `RNN.__call__`, more slowly: on random inputs it raised" in capsys.readouterr().out


class _RNNOfOtherNames:
    """A right RNN whose layers are not named as the notebook names them: the stand-in cannot read its weights."""

    def __init__(self, dim_input, dim_recurrent, dim_output):
        self.w_in = dense(dim_input, dim_recurrent)
        self.w_rec = dense(dim_recurrent, dim_recurrent, bias=False)
        self.w_out = dense(dim_recurrent, dim_output)

    def __call__(self, x, h=None):
        h_t = np.zeros((x.shape[1], self.w_rec.weight.shape[0]), dtype=np.float32) if h is None else h[0]
        states = []
        for x_t in self.w_in(x):
            h_t = mg.tanh(x_t + self.w_rec(h_t))
            states.append(h_t)
        states = mg.stack(states)
        return self.w_out(states), states

    @property
    def parameters(self):
        return self.w_in.parameters + self.w_rec.parameters + self.w_out.parameters


def test_an_rnn_with_other_layer_names_keeps_its_own():
    chosen = fused.rnn_training({"RNN": _RNNOfOtherNames}, announce=False)
    assert chosen.refused == {"`RNN.__call__`": "course.ops's version cannot run on your objects (AttributeError)"}


def test_a_wrong_attend_keeps_the_students_own():
    namespace = _namespace("03_attention")
    own = namespace["attend"]

    def unscaled_by_weights(enc_proj, enc_h, h_t):  # the weights right, the context an unweighted mean
        context, weights = own(enc_proj, enc_h, h_t)
        return enc_h.mean(axis=0, keepdims=True), weights

    namespace["attend"] = unscaled_by_weights
    assert list(fused.attention_training(namespace, announce=False).refused) == ["`attend`"]


def test_stand_ins_are_in_place_only_inside_the_block_and_trials_keep_numpys_generator():
    namespace = _namespace("04_transformer")
    norm, loss = namespace["ResidualConnectionAndLayerNorm"].__call__, namespace["masked_loss"]
    np.random.seed(11)
    expected = np.random.get_state()[1].copy()
    chosen = fused.transformer_training(namespace, announce=False)
    np.testing.assert_array_equal(np.random.get_state()[1], expected)
    with chosen:
        assert namespace["masked_loss"] is not loss and namespace["ResidualConnectionAndLayerNorm"].__call__ is not norm
    assert namespace["masked_loss"] is loss and namespace["ResidualConnectionAndLayerNorm"].__call__ is norm
    with pytest.raises(KeyError), chosen:
        raise KeyError  # an error in training takes the stand-ins out too
    assert namespace["masked_loss"] is loss


def test_training_on_the_stand_ins_follows_the_students_own_code():
    """Ten Adam steps of 04's model: the same losses with the stand-ins as with the reference's own code."""
    from mynn.optimizers.adam import Adam

    losses = []
    texts = None
    for use in (False, True):
        namespace = _namespace("04_transformer")
        if texts is None:
            texts = namespace["load_cipher_data"](str(SOLUTIONS / "04_transformer" / "cipher_data.npz")).train_plain
        chosen = fused.transformer_training(namespace, announce=False)
        np.random.seed(0)
        model = namespace["new_model"]()
        optimizer = Adam(model.parameters, learning_rate=3e-3)
        rng = np.random.default_rng(0)
        run = []
        with mg.mem_guard_off:
            for _ in range(10):
                if use:
                    with chosen:
                        run.append(namespace["training_step"](model, optimizer, rng, texts)[0])
                else:
                    run.append(namespace["training_step"](model, optimizer, rng, texts)[0])
        losses.append(run)
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-3)


@pytest.mark.parametrize("T, N, D", [(1, 1, 1), (6, 3, 4), (20, 100, 25)])
def test_attend_equals_einsum_softmax_einsum(T, N, D):
    rng = np.random.default_rng(T)
    data = [rng.normal(size=s).astype(np.float32) * 3 for s in [(T, N, D), (T, N, D), (1, N, D)]]
    upstream = rng.normal(size=(1, N, D)).astype(np.float32)
    results = []
    for fused_op in (False, True):
        inputs = [mg.tensor(a) for a in data]
        if fused_op:
            context, weights = ops.attend(*inputs)
            assert weights.constant and weights.shape == (T, N)
        else:
            scores = mg.einsum("tnd,snd->tsn", inputs[0], inputs[2])
            weights = mg.nnet.softmax(scores, axis=0)
            context = mg.einsum("tsn,tnd->snd", weights, inputs[1])
            weights = weights.reshape(T, N)
        (context * upstream).sum().backward()
        results.append([context.data, weights.data] + [t.grad for t in inputs])
    for got, want in zip(results[1], results[0], strict=True):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_attend_without_a_graph_and_with_bad_shapes():
    rng = np.random.default_rng(0)
    proj, states, h = (rng.normal(size=s).astype(np.float32) for s in [(4, 2, 3), (4, 2, 3), (1, 2, 3)])
    with mg.no_autodiff:
        context, weights = ops.attend(proj, states, h)
    np.testing.assert_allclose(np.asarray(weights).sum(axis=0), 1, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(context)[0], np.einsum("tn,tnd->nd", np.asarray(weights), states), rtol=1e-5)
    with pytest.raises(ValueError, match="h_t of shape"):
        ops.attend(proj, states, h[0])


def test_a_notebook_without_the_functions_trains_on_nothing_fused(capsys):
    for training in (fused.rnn_training, fused.attention_training, fused.transformer_training):
        chosen = training({})
        assert not chosen.used and set(chosen.refused.values()) == {"the notebook does not define it"}
    assert "Training runs your own `attend`, more slowly: the notebook does not define it." in capsys.readouterr().out


def test_an_rnn_whose_recurrent_layer_has_a_bias_trains_fused_too():
    """A right RNN with a bias in its recurrent layer as well: the stand-in adds it to the input layer's."""
    namespace = _namespace("01_rnn")
    rnn = namespace["RNN"]
    original_init = rnn.__init__

    def with_recurrent_bias(self, dim_input, dim_recurrent, dim_output):
        original_init(self, dim_input, dim_recurrent, dim_output)
        self.recurrent_layer = dense(dim_recurrent, dim_recurrent)  # bias=True: h_{t-1} W_hh + b_h

    rnn.__init__ = with_recurrent_bias
    chosen = fused.rnn_training(namespace, announce=False)
    assert [s.label for s in chosen.used] == ["`RNN.__call__`"] and not chosen.refused
