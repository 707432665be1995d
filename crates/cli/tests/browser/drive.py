#!/usr/bin/env python3
"""Drives the pages of a running `qizero serve` in headless Chromium (crates/cli/tests/browser.rs).

Every wait is on a data attribute the pages keep (body[data-ready], data-ply, data-result,
data-searching, #search[data-depth], [data-dest], ...), never on a sleep. The steps:

  a) xiangqi: the red cannon on h2 (square 25) shows exactly the server's legal destinations;
     h2e2 is played by clicks and the alpha-beta engine (depth 1) answers; the move list steps
     back and forth;
  b) draughts: the same check for one piece and a move answered by the engine; two captures
     with the same ends offered in the chooser; then an endgame set up through the FEN box,
     played out AI vs AI until the status shows a result;
  c) screenshots of both play boards while an analysis runs (search panel live), and of the
     watch page;
  d) the watch page of the micro run shows its Elo ladder.

Usage: drive.py --url http://127.0.0.1:PORT --screenshots DIR
Exit status: 0 when every check passed; 1 when a check failed (it says what it expected);
3 when selenium, Chromium or its driver is missing (the Rust test skips, or fails under CI).
Selenium is handed the driver's path, so Selenium Manager never looks for one on the network.
"""

import argparse
import json
import os
import sys
import time

try:
    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException, WebDriverException
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError as e:
    print(f"missing: the Python package selenium ({e}) under {sys.executable}")
    sys.exit(3)

WAIT_S = 45

# A white king on 11 with two captures from 11 to 16 (11x2x19x32x16 and 11x2x30x43x16): the
# page must offer a choice between them.
DRAUGHTS_TWO_WAYS = "W:WK11:B7,34,6,23,21,41,13"

# Three white kings against one black man: alpha-beta at depth 1 on both sides ends it in
# under 20 plies (White wins by taking the man).
DRAUGHTS_ENDGAME = "W:WK46,K47,K48:B3"


class CheckFailed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise CheckFailed(message)


class Page:
    def __init__(self, driver, base):
        self.d = driver
        self.base = base

    def open(self, path):
        self.d.get(self.base + path)

    def body(self, name):
        return self.d.find_element(By.TAG_NAME, "body").get_attribute(name)

    def until(self, what, condition, timeout=WAIT_S):
        """Waits until condition(driver) is truthy; on timeout says what was awaited and the page's error.

        The pages redraw their boards and move list on every event, so an element found in one
        try may be gone in the next: a stale element is one more try."""
        try:
            wait = WebDriverWait(self.d, timeout, poll_frequency=0.1, ignored_exceptions=[StaleElementReferenceException])
            return wait.until(condition)
        except TimeoutException:
            raise CheckFailed(
                f"timed out after {timeout}s waiting for {what}; body: ply={self.body('data-ply')!r} "
                f"searching={self.body('data-searching')!r} result={self.body('data-result')!r} "
                f"error={self.body('data-error')!r}"
            ) from None

    def until_body(self, name, predicate, what=None, timeout=WAIT_S):
        def cond(d):
            value = d.find_element(By.TAG_NAME, "body").get_attribute(name)
            return value is not None and predicate(value)

        return self.until(what or f"body[{name}]", cond, timeout)

    def no_error(self, step):
        error = self.body("data-error")
        check(not error, f"{step}: the page shows an error: {error}")

    def click(self, element_id):
        self.click_css(f"#{element_id}")

    def click_css(self, selector):
        """Clicks the element `selector` finds, finding it again if it was redrawn meanwhile."""

        def attempt(d):
            d.find_element(By.CSS_SELECTOR, selector).click()
            return True

        self.until(f"a click on {selector}", attempt)

    def read(self, what, read):
        """read(driver), retried while the page redraws what it reads."""
        return self.until(what, lambda d: (read(d),))[0]

    def square(self, index):
        self.click_css(f'.hit[data-square="{index}"]')

    def dests(self):
        return self.read("the destination markers", lambda d: {int(e.get_attribute("data-dest")) for e in d.find_elements(By.CSS_SELECTOR, "[data-dest]")})

    def set_value(self, element_id, value):
        """Types `value` over the box's text. Not with clear(): WebDriver's clear blurs the box,
        and the page refills an unfocused FEN or record box on every state it receives (a late
        report of a search), so the typing would be appended to the refilled text."""
        box = self.d.find_element(By.ID, element_id)
        box.click()
        box.send_keys(Keys.CONTROL, "a")
        box.send_keys(Keys.DELETE)
        if value:
            box.send_keys(value)
        got = box.get_attribute("value")
        check(got == value, f"the {element_id} box holds {got!r}, not {value!r}")

    def set_checked(self, element_id, on):
        box = self.d.find_element(By.ID, element_id)
        if box.is_selected() != on:
            box.click()

    def select(self, element_id, value):
        Select(self.d.find_element(By.ID, element_id)).select_by_value(value)

    def state(self):
        """The server's state of the page's game, fetched by the page itself."""
        script = """
            const done = arguments[arguments.length - 1];
            fetch('/api/games/' + document.body.dataset.gameId)
                .then((r) => r.text()).then(done, (e) => done(JSON.stringify({error: String(e)})));
        """
        state = json.loads(self.d.execute_async_script(script))
        check("error" not in state, f"GET the game: {state}")
        return state

    def alphabeta(self, depth):
        self.select("engine", "alphabeta")
        self.set_value("depth", str(depth))
        self.set_value("movetime", "")

    def new_game(self, game):
        old = self.body("data-game-id")
        if self.body("data-game") != game:
            self.select("game", game)
        else:
            self.click("new-game")
        self.until_body("data-game-id", lambda v: v and v != old, f"a new {game} game")
        self.until_body("data-ply", lambda v: v == "0")
        check(self.body("data-game") == game, f"data-game is {self.body('data-game')!r}, not {game}")

    def destinations_match(self, square, label):
        state = self.state()
        expected = {m["to"] for m in state["legal"] if m["from"] == square}
        check(expected, f"{label}: square {square} has no legal move in the server's state")
        self.square(square)
        self.until(f"{label}: destination markers", lambda d: d.find_elements(By.CSS_SELECTOR, "[data-dest]"))
        shown = self.dests()
        check(shown == expected, f"{label}: destinations {sorted(shown)}, the server's legal moves say {sorted(expected)}")
        return state

    def analyse_and_shoot(self, path, label):
        self.set_checked("engine-plays", False)
        self.click("analyse")
        self.until_body("data-searching", lambda v: v == "1", f"{label}: the analysis to start")
        self.until(
            f"{label}: #search data-depth >= 3",
            lambda d: int(d.find_element(By.ID, "search").get_attribute("data-depth") or 0) >= 3,
        )
        pv = self.read("the PV", lambda d: d.find_element(By.ID, "pv").text)
        score = self.read("the score", lambda d: d.find_element(By.ID, "score").text)
        check(pv.strip(), f"{label}: the PV is empty during the analysis")
        check(score.strip() not in ("", "–"), f"{label}: no score during the analysis")
        self.until(f"{label}: the best-move arrow", lambda d: d.find_elements(By.CSS_SELECTOR, "svg.board .arrow"))
        self.d.save_screenshot(path)
        self.click("stop")
        self.until_body("data-searching", lambda v: v == "0", f"{label}: the analysis to stop")
        self.no_error(label)


def xiangqi(page, shots):
    page.open("/?game=xiangqi")
    page.until_body("data-ready", lambda v: v == "1", "the play page")
    page.new_game("xiangqi")
    page.alphabeta(1)
    page.select("play-as", "0")
    page.set_checked("engine-plays", True)

    piece = page.read("h2", lambda d: d.find_element(By.CSS_SELECTOR, '[data-piece][data-square="25"]').get_attribute("data-piece"))
    check(piece == "C", f"xiangqi: square 25 (h2) holds {piece!r}, not the red cannon")
    page.destinations_match(25, "xiangqi h2")
    page.square(22)
    page.until_body("data-ply", lambda v: v == "2", "xiangqi: the engine's reply (ply 2)")
    page.until_body("data-searching", lambda v: v == "0")
    page.no_error("xiangqi move")
    state = page.state()
    check(state["history"][0]["move"]["id"] == "h2e2", f"xiangqi: first move {state['history'][0]['move']}")
    cells = page.read("the move list", lambda d: [c.text for c in d.find_elements(By.CSS_SELECTOR, "#moves [data-ply-index]")])
    check(len(cells) == 2, f"xiangqi: {len(cells)} moves in the list after two plies")
    check(cells[0] == state["history"][0]["move"]["text"], f"xiangqi: move list says {cells[0]!r}")
    check(not page.dests(), "xiangqi: destinations still marked after the move")

    # The move list: click the first move, step with the arrow keys.
    page.click_css('#moves [data-ply-index="0"]')
    page.until("the first move highlighted", lambda d: d.find_elements(By.CSS_SELECTOR, '#moves .current[data-ply-index="0"]'))
    page.d.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    page.until("the last move highlighted", lambda d: d.find_elements(By.CSS_SELECTOR, '#moves .current[data-ply-index="1"]'))
    check(page.body("data-ply") == "2", "stepping through the list changed the game")

    page.analyse_and_shoot(os.path.join(shots, "play-xiangqi.png"), "xiangqi analysis")


def draughts(page, shots):
    page.new_game("draughts")
    page.alphabeta(1)
    page.select("play-as", "0")
    page.set_checked("engine-plays", True)
    state = page.state()
    square = min(m["from"] for m in state["legal"])
    pieces = page.read("a white man", lambda d: [e.get_attribute("data-piece") for e in d.find_elements(By.CSS_SELECTOR, f'[data-piece][data-square="{square}"]')])
    check(pieces == ["w"], f"draughts: square {square + 1} holds {pieces}, not a white man")
    page.destinations_match(square, f"draughts {square + 1}")
    target = min(m["to"] for m in state["legal"] if m["from"] == square)
    page.square(target)
    page.until_body("data-ply", lambda v: v == "2", "draughts: the engine's reply (ply 2)")
    page.until_body("data-searching", lambda v: v == "0")
    page.no_error("draughts move")

    page.analyse_and_shoot(os.path.join(shots, "play-draughts.png"), "draughts analysis")

    # Two captures with the same ends: a chooser lists both, with their paths drawn.
    page.set_checked("engine-plays", False)
    page.set_value("fen", DRAUGHTS_TWO_WAYS)
    page.click("load-fen")
    page.until_body("data-ply", lambda v: v == "0", "the two-way capture position")
    page.until("the king on 11", lambda d: d.find_elements(By.CSS_SELECTOR, '[data-piece="W"][data-square="10"]'))
    state = page.state()
    twins = sorted(m["id"] for m in state["legal"] if m["from"] == 10 and m["to"] == 15)
    check(len(twins) == 2, f"draughts: the server offers {twins} from 11 to 16, not two captures")
    page.square(10)
    page.until("draughts: destination 16", lambda d: d.find_elements(By.CSS_SELECTOR, '[data-dest="15"]'))
    page.square(15)
    page.until("the capture chooser", lambda d: d.find_elements(By.CSS_SELECTOR, "#chooser button[data-move]"))
    offered = page.read("the chooser", lambda d: sorted(b.get_attribute("data-move") for b in d.find_elements(By.CSS_SELECTOR, "#chooser button[data-move]")))
    check(offered == twins, f"draughts: the chooser offers {offered}, the server {twins}")
    paths = page.read("the paths", lambda d: len(d.find_elements(By.CSS_SELECTOR, "svg.board .path")))
    check(paths >= 2, f"draughts: {paths} capture paths drawn for the chooser")
    chosen = offered[0]
    page.click_css(f'#chooser button[data-move="{chosen}"]')
    page.until_body("data-ply", lambda v: v == "1", "draughts: the chosen capture played")
    state = page.state()
    check(state["history"][0]["move"]["id"] == chosen, f"draughts: played {state['history'][0]['move']['id']}, chose {chosen}")
    page.no_error("draughts chooser")

    # An endgame through the FEN box, played out by the engine on both sides.
    page.set_value("fen", DRAUGHTS_ENDGAME)
    page.click("load-fen")
    page.until(
        "the endgame on the board",
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "[data-piece]")) == 4 and d.find_element(By.TAG_NAME, "body").get_attribute("data-ply") == "0",
    )
    page.no_error("load FEN")
    page.select("speed", "0")
    page.click("ai-vs-ai")
    page.until_body("data-result", lambda v: v != "", "draughts: AI vs AI to end the game", timeout=90)
    page.until_body("data-searching", lambda v: v == "0")
    state = page.state()
    check(state["result"] and state["result"]["score"] == page.body("data-result"), f"draughts: data-result vs {state['result']}")
    status = page.read("the status line", lambda d: d.find_element(By.ID, "status").text)
    check(state["result"]["text"] in status, f"draughts: the status line {status!r} lacks {state['result']['text']!r}")
    check(state["ply"] <= 30, f"draughts: the endgame took {state['ply']} plies")
    page.no_error("AI vs AI")


def watch(page, shots):
    page.open("/watch?run=0")
    page.until_body("data-ready", lambda v: v == "1", "the watch page")
    page.until_body("data-players", lambda v: int(v) >= 2, "the watch page's ladder (2 players or more)")
    names = page.read("the ladder rows", lambda d: [r.get_attribute("data-player") for r in d.find_elements(By.CSS_SELECTOR, "tr[data-player]")])
    check(len(names) == int(page.body("data-players")), f"watch: {len(names)} ladder rows for {page.body('data-players')} players")
    check("random" in names, f"watch: the anchor is not on the ladder {sorted(names)}")
    page.until("an arena match listed", lambda d: d.find_elements(By.CSS_SELECTOR, "#arena button[data-file]"))
    page.click_css("#arena button[data-file]")
    page.until("the arena game on its board", lambda d: d.find_elements(By.CSS_SELECTOR, "#ar-board [data-piece]"))
    page.until("the self-play game on its board", lambda d: d.find_elements(By.CSS_SELECTOR, "#sp-board [data-piece]"))
    page.no_error("watch")
    page.d.execute_script("window.scrollTo(0, 0)")
    page.d.save_screenshot(os.path.join(shots, "watch.png"))


def browser(args):
    options = Options()
    options.binary_location = args.browser
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(executable_path=args.driver), options=options)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", required=True, help="the server, http://127.0.0.1:PORT")
    ap.add_argument("--screenshots", required=True, help="folder for the PNG screenshots")
    ap.add_argument("--driver", default="/usr/bin/chromedriver")
    ap.add_argument("--browser", default="/usr/bin/chromium")
    args = ap.parse_args()
    os.makedirs(args.screenshots, exist_ok=True)
    for path in (args.driver, args.browser):
        if not os.access(path, os.X_OK):
            print(f"missing: {path} (Debian packages chromium and chromium-driver)")
            return 3
    try:
        d = browser(args)
    except WebDriverException as e:
        print(f"drive.py: cannot start Chromium through {args.driver}: {e.msg}", file=sys.stderr)
        return 2
    page = Page(d, args.url.rstrip("/"))
    started = time.monotonic()
    try:
        for step in (xiangqi, draughts, watch):
            t = time.monotonic()
            step(page, args.screenshots)
            print(f"drive.py: {step.__name__} passed in {time.monotonic() - t:.1f}s", flush=True)
    except CheckFailed as e:
        d.save_screenshot(os.path.join(args.screenshots, "failure.png"))
        print(f"drive.py: FAILED: {e}", file=sys.stderr)
        logs = d.get_log("browser") if hasattr(d, "get_log") else []
        for entry in logs:
            print(f"  console: {entry.get('level')} {entry.get('message')}", file=sys.stderr)
        return 1
    finally:
        d.quit()
    print(f"drive.py: all checks passed in {time.monotonic() - started:.1f}s; screenshots in {args.screenshots}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
