#!/usr/bin/env python3
"""
The requests the Who&When reference code sends, as fixtures for faultline's `--prompts paper`.

Runs All-at-Once, Step-by-Step and Binary Search of the reference's `Lib/utils.py`
(ag2ai/Agents_Failure_Attribution, MIT, Copyright (c) 2025 Ming Yin) on the small records in
src/attribution/llm/__fixtures__/paper/ with a scripted client in place of Azure OpenAI (no
network, no key: `openai` and `tqdm` are stubbed before the reference is imported), records every
request it makes, and reads what it printed with the reference's own `evaluate.py`. The requests
without ground truth are the same requests with the line the reference marks "remove if ground
truth shouldn't be used" left out. The test (paper-methods.test.ts) compares faultline's requests
with these, character for character, and runs this script again where python3 is present.

  python3 scripts/paper-prompt-fixtures.py [--reference DIR] [--out DIR]

DIR defaults: ../shared/reference/who-and-when-automated-fa beside the repository, and the
fixture folder itself.
"""
import argparse
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import types

sys.dont_write_bytecode = True  # nothing is written beside the reference code

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "src", "attribution", "llm", "__fixtures__", "paper")
DEFAULT_REFERENCE = os.path.join(ROOT, "..", "shared", "reference", "who-and-when-automated-fa")

# The records and the layout the reference reads each in ("role" for Hand-Crafted).
LAYOUTS = [("hand-crafted", True), ("algorithm-generated", False)]

# Scripted replies per method: each scenario runs until the reference stops (unused replies are
# dropped from the fixture).
SCENARIOS = {
    "all_at_once": {
        "named": [
            "Agent Name: WebSurfer\nStep Number: 3\nReason for Mistake: A live album was counted as a studio album."
        ],
        "bold": ["**Agent Name:** WebSurfer\n**Step Number:** 3\n**Reason for Mistake:** wrong count"],
    },
    "step_by_step": {
        "first-yes": [
            "1. No.\n2. Reason: The request is clear.",
            "**1. Yes**\n2. Reason: The plan is wrong.",
            "1. Yes.\n2. Reason: The count is wrong.",
        ],
        "no-error": ["1. No.\n2. Reason: Fine."] * 7,
    },
    "binary_search": {
        "upper": ["upper half"] * 8,
        "lower": ["The error is in the lower half."] * 8,
        "mixed": ["Lower half", "UPPER HALF: the listing step", "lower half"] + ["upper half"] * 5,
    },
}


class ScriptExhausted(BaseException):
    """Raised past the script's end; not an Exception, so the reference's handler lets it through."""


class ScriptedClient:
    """Stands in for AzureOpenAI: records each request and answers the next scripted reply."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.requests = []
        self.chat = self
        self.completions = self

    def create(self, **request):
        self.requests.append(request)
        if len(self.requests) > len(self.replies):
            raise ScriptExhausted(f"no reply scripted for request {len(self.requests)}")
        reply = self.replies[len(self.requests) - 1]
        message = types.SimpleNamespace(content=reply)
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)])


def load_reference(reference):
    """The reference's utils and evaluate modules, imported with stubs for openai and tqdm."""
    openai = types.ModuleType("openai")
    openai.AzureOpenAI = object
    sys.modules["openai"] = openai
    tqdm = types.ModuleType("tqdm")
    tqdm.tqdm = lambda iterable, **_: iterable
    sys.modules["tqdm"] = tqdm
    sys.path.insert(0, reference)
    from Lib import utils  # noqa: E402
    import evaluate  # noqa: E402

    return utils, evaluate


def without_ground_truth(request, ground_truth):
    """The request with the ground-truth line left out (it occurs exactly once in each prompt)."""
    line = f"The Answer for the problem is: {ground_truth}\n"
    messages = []
    for message in request["messages"]:
        content = message["content"]
        if message["role"] == "user":
            assert content.count(line) == 1, "the ground-truth line occurs once per prompt"
            content = content.replace(line, "")
        messages.append({**message, "content": content})
    return {**request, "messages": messages}


def run(utils, evaluate, method, record_file, handcrafted, replies):
    """One run of a reference method: its requests and evaluate.py's reading of its output."""
    folder = tempfile.mkdtemp()
    try:
        shutil.copy(record_file, os.path.join(folder, "record.json"))
        client = ScriptedClient(replies)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            getattr(utils, method)(client, folder, handcrafted, "gpt-4o", 1024)
        output = os.path.join(folder, "output.txt")
        with open(output, "w", encoding="utf-8") as file:
            file.write(printed.getvalue())
        with contextlib.redirect_stdout(io.StringIO()):
            predictions = evaluate.read_predictions(output)
        prediction = predictions.get("record.json")
        return client.requests, (
            {"agent": prediction["predicted_agent"], "step": int(prediction["predicted_step"])}
            if prediction
            else None
        )
    finally:
        shutil.rmtree(folder)


def main():
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--reference", default=DEFAULT_REFERENCE)
    parser.add_argument("--out", default=FIXTURES)
    args = parser.parse_args()
    utils, evaluate = load_reference(os.path.abspath(args.reference))
    os.makedirs(args.out, exist_ok=True)
    for layout, handcrafted in LAYOUTS:
        record_file = os.path.join(FIXTURES, f"{layout}.json")
        with open(record_file, encoding="utf-8") as file:
            ground_truth = json.load(file).get("ground_truth", "")
        runs = []
        for method, scenarios in SCENARIOS.items():
            for scenario, replies in scenarios.items():
                requests, prediction = run(utils, evaluate, method, record_file, handcrafted, replies)
                runs.append(
                    {
                        "method": method,
                        "scenario": scenario,
                        "replies": replies[: len(requests)],
                        "prediction": prediction,
                        "withGroundTruth": requests,
                        "withoutGroundTruth": [without_ground_truth(r, ground_truth) for r in requests],
                    }
                )
        fixture = {
            "comment": "Made by scripts/paper-prompt-fixtures.py from the Who&When reference code (Lib/utils.py, evaluate.py); do not edit by hand.",
            "record": f"{layout}.json",
            "isHandcrafted": handcrafted,
            "runs": runs,
        }
        with open(os.path.join(args.out, f"{layout}.reference.json"), "w", encoding="utf-8") as file:
            json.dump(fixture, file, ensure_ascii=False, indent=2)
            file.write("\n")


if __name__ == "__main__":
    main()
