"""`bots init NAME`: a package for a bot kind of one's own. `init coach` writes
Examples/CoachBot (compiled and tested in this repository) byte for byte; another name writes
the same package renamed; bad input writes nothing. The last test builds and tests a written
package with `swift` as its user would, which takes minutes (a fresh build of its dependencies);
its build starts when the tests are collected and overlaps the other tests (background_build.py)."""

import shutil
import subprocess

import pytest

from conftest import ROOT, bots_binary

EXAMPLE = ROOT / "Examples" / "CoachBot"
COPIED = ["Sources/CoachBot/Coach.swift", "Sources/coach/main.swift", "Sources/coach/Cheer.swift", "Tests/CoachBotTests/CoachTests.swift",
          "bots.yaml"]


def init(cwd, *args):
    return subprocess.run([bots_binary(), "init", *args], cwd=cwd, capture_output=True, text=True, timeout=60)


def files_in(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def test_init_coach_writes_the_coach_example_and_a_package_on_this_checkout(tmp_path):
    done = init(tmp_path, "coach")
    assert done.returncode == 0, done.stdout + done.stderr
    package = tmp_path / "coach"
    assert files_in(package) == sorted(["Package.swift", ".gitignore", "README.md", *COPIED])
    for path in COPIED:
        assert (package / path).read_text() == (EXAMPLE / path).read_text(), path
    manifest = (package / "Package.swift").read_text()
    identity = ROOT.name
    assert f'.package(path: "{ROOT}", traits: ["Tools"])' in manifest
    assert f'.executableTarget(name: "coach", dependencies: ["CoachBot", .product(name: "BotsCLI", package: "{identity}")])' in manifest
    assert f'.product(name: "ChatBotKitTesting", package: "{identity}")' in manifest
    assert (package / ".gitignore").read_text() == ".build/\n.bots/\n"
    assert f"Wrote a package for the bot kind coach in coach, on ChatBotKit at {ROOT}:" in done.stdout
    assert "  swift run coach simulate --attachment" in done.stdout


def test_a_hyphenated_name_and_a_git_url(tmp_path):
    done = init(tmp_path, "step-counter", "--directory", "steps", "--chatbotkit", "https://git.example.com/team/ChatBotKit.git")
    assert done.returncode == 0, done.stdout + done.stderr
    package = tmp_path / "steps"
    assert files_in(package) == sorted([
        "Package.swift", ".gitignore", "README.md", "bots.yaml", "Sources/StepCounterBot/StepCounter.swift",
        "Sources/step-counter/main.swift", "Sources/step-counter/Cheer.swift", "Tests/StepCounterBotTests/StepCounterTests.swift"])
    manifest = (package / "Package.swift").read_text()
    assert '.package(url: "https://git.example.com/team/ChatBotKit.git", branch: "main", traits: ["Tools"])' in manifest
    assert '.product(name: "BotsCLI", package: "ChatBotKit")' in manifest
    kind = (package / "Sources/StepCounterBot/StepCounter.swift").read_text()
    assert "public enum StepCounter: BotKind {" in kind and 'public static let name = "step-counter"' in kind
    assert "await BotsCLI.main(kinds: [StepCounter.self], commands: [Cheer.self])" in (package / "Sources/step-counter/main.swift").read_text()
    configuration = (package / "bots.yaml").read_text()
    assert "    kind: step-counter\n    user: step-counter-bot\n" in configuration
    # What init writes for a name is what it writes for coach, renamed.
    renamed = (EXAMPLE / "Sources/CoachBot/Coach.swift").read_text() \
        .replace("CoachBot", "StepCounterBot").replace("Coach", "StepCounter").replace("coach", "step-counter")
    assert kind == renamed
    command = (package / "Sources/step-counter/Cheer.swift").read_text()
    assert command == (EXAMPLE / "Sources/coach/Cheer.swift").read_text() \
        .replace("CoachBot", "StepCounterBot").replace("Coach", "StepCounter").replace("coach", "step-counter")


@pytest.mark.parametrize("name", ["Coach", "1coach", "co_ach", "coach-", "-coach", "step--counter", "caf\u00e9", "a" * 65])
def test_a_name_that_cannot_name_a_kind_is_refused_and_nothing_is_written(tmp_path, name):
    done = init(tmp_path, "--", name)  # after --, "-coach" is the name, not options
    assert done.returncode == 64, done.stdout + done.stderr
    assert f'"{name}" cannot name a bot kind: use lowercase letters and digits' in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_folder_that_is_not_empty_is_left_as_it_was(tmp_path):
    folder = tmp_path / "coach"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    done = init(tmp_path, "coach")
    assert done.returncode == 73, done.stdout + done.stderr
    assert "coach is not empty; nothing was written" in done.stderr
    assert files_in(folder) == ["notes.txt"] and (folder / "notes.txt").read_text() == "mine"
    # An empty folder is fine.
    empty = tmp_path / "empty"
    empty.mkdir()
    assert init(tmp_path, "coach", "--directory", "empty").returncode == 0
    assert (empty / "Package.swift").exists()


def test_a_chatbotkit_folder_that_is_not_one_is_refused(tmp_path):
    done = init(tmp_path, "coach", "--chatbotkit", str(tmp_path))
    assert done.returncode == 64, done.stdout + done.stderr
    assert f"{tmp_path} does not hold ChatBotKit's Package.swift; give --chatbotkit a ChatBotKit checkout or its git URL" in done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(shutil.which("swift") is None, reason="needs the swift toolchain")
@pytest.mark.builds_in_background("pace-keeper")
def test_a_written_package_builds_runs_and_passes_its_tests(background_build):
    # A name other than the example's, on this checkout: what a user starting a bot does. Its
    # `swift build --build-tests` started when the tests were collected (background_build.py).
    assert background_build.init.returncode == 0, background_build.init.stdout + background_build.init.stderr
    package = background_build.package
    code, output = background_build.wait()
    assert code == 0, output[-10000:]
    binary = subprocess.run(["swift", "build", "--show-bin-path"], cwd=package, capture_output=True, text=True,
                            timeout=300).stdout.strip()
    simulated = subprocess.run([f"{binary}/pace-keeper", "simulate", "--attachment", '{"type":"workout","distance":5000}'],
                               cwd=package, capture_output=True, text=True, timeout=120)
    assert simulated.returncode == 0, simulated.stdout + simulated.stderr
    assert "  pace-keeper-bot wrote:\n    Way to go, 5000 m!" in simulated.stdout
    helped = subprocess.run([f"{binary}/pace-keeper", "cheer", "--help"], cwd=package, capture_output=True, text=True, timeout=60)
    assert "USAGE: pace-keeper cheer [--config <config>] [--server <server>] [--bot <bot>] [--channel <channel>] <user>" in helped.stdout, \
        helped.stdout + helped.stderr
    tested = subprocess.run(["swift", "test", "--skip-build"], cwd=package, capture_output=True, text=True, timeout=600)
    assert tested.returncode == 0, tested.stdout[-5000:] + tested.stderr[-5000:]
    assert "Test run with 2 tests" in tested.stdout + tested.stderr
