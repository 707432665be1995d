//! Xiangqi for the alpha-beta search: the [`SearchGame`] implementation and the evaluation.
//!
//! Units: hundredths of a soldier that has not crossed the river (an uncrossed soldier = 100).
//!
//! The evaluation is a hand-written classical one, built to be computed from scratch at every
//! node in well under a microsecond (no allocation, one pass over each side's pieces by kind,
//! table lookups, among them the rules crate's attack tables, [`xiangqi::attacks`]). Every term is scored twice, for the middlegame and
//! for the endgame, and the two are blended by the [`phase`] (how much attacking material is
//! left), so that for example the king's shelter matters while rooks are on the board and the
//! soldiers' advance matters more once they are gone. The terms, each documented where it is
//! computed:
//!
//! - material, with cannons worth more than horses early and less late;
//! - piece-square tables for all seven kinds, written from Red's view and mirrored for Black;
//! - mobility of rooks, horses and cannons (pseudo-legal target counts);
//! - soldier structure: connected crossed soldiers, soldiers at the palace of a thinned defence;
//! - king safety: attacks on the enemy palace weighed against missing advisors and elephants,
//!   the king's file left open to rooks, cannons aimed at the king (hollow cannon, pins);
//! - a tempo bonus for the side to move;
//! - a drawishness scale for endgames the stronger side cannot win (too little attacking force
//!   against a full defence).
//!
//! The weights are set by hand from common xiangqi knowledge, none tuned automatically yet. They
//! were checked by games: against Fairy-Stockfish 11.1 at 100 ms a move this evaluation scored
//! about 40% (50 games) where material alone scored 0% (20 games); in self-play at fixed time,
//! mobility was worth about 100 Elo and the king-attack term a little (within the noise of 40-80
//! games), and changes to the material values or doubling the king attack gained nothing.

use crate::SearchGame;
use game::Outcome;
use xiangqi::{Bitboard, Color, Game, Kind, Move, MoveList, Position, Square, attacks};

/// A score split into its middlegame and endgame halves.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct S {
    mg: i32,
    eg: i32,
}

const fn s(mg: i32, eg: i32) -> S {
    S { mg, eg }
}

impl std::ops::Add for S {
    type Output = S;
    #[inline]
    fn add(self, o: S) -> S {
        s(self.mg + o.mg, self.eg + o.eg)
    }
}

impl std::ops::AddAssign for S {
    #[inline]
    fn add_assign(&mut self, o: S) {
        self.mg += o.mg;
        self.eg += o.eg;
    }
}

impl std::ops::SubAssign for S {
    #[inline]
    fn sub_assign(&mut self, o: S) {
        self.mg -= o.mg;
        self.eg -= o.eg;
    }
}

impl std::ops::Mul<i32> for S {
    type Output = S;
    #[inline]
    fn mul(self, k: i32) -> S {
        s(self.mg * k, self.eg * k)
    }
}

/// Material by [`Kind`] index (king, advisor, elephant, horse, rook, cannon, soldier), middlegame
/// and endgame. A cannon needs screens, which thin out as pieces come off, while a horse gains
/// room: so the cannon is the better piece early and the horse late. A rook is worth about a
/// horse and a cannon together.
const MATERIAL: [S; 7] = [s(0, 0), s(200, 200), s(200, 200), s(400, 450), s(950, 950), s(450, 410), s(100, 100)];

/// Plain material values, one number per kind, for move ordering and quiescence pruning (the
/// search's delta pruning reads the victim's value out of [`SearchGame::capture_order`]).
pub const PIECE_VALUES: [i32; 7] = [0, 200, 200, 430, 950, 430, 100];

/// Value of a soldier that has crossed the river, for move ordering.
pub const CROSSED_SOLDIER: i32 = 200;

/// Piece-square tables: bonuses over material, from Red's view, written as the board is drawn
/// (first row = rank 9, the enemy's back rank; last row = rank 0, Red's own back rank; files
/// `a`..`i` left to right). Black reads them rotated. The tables are left-right symmetric.
type Table = [i32; 90];

/// King: stay on the back rank while there is material to attack it; each step up the palace
/// leaves it easier to check (a raised king cannot hide behind its advisors).
const KING_MG: Table = table([
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, -45, -40, -45, 0, 0, 0],
    [0, 0, 0, -20, -15, -20, 0, 0, 0],
    [0, 0, 0, -5, 0, -5, 0, 0, 0],
]);

/// King in the endgame: a king on a side file helps its pieces (it holds the file against the
/// enemy king), and being raised costs little once the attackers are gone.
const KING_EG: Table = table([
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, -10, -15, -10, 0, 0, 0],
    [0, 0, 0, 0, -5, 0, 0, 0, 0],
    [0, 0, 0, 5, 0, 5, 0, 0, 0],
]);

/// Advisor: the palace centre (`e1`) covers every palace square; a raised advisor (`d2`, `f2`)
/// leaves the corner of the palace open to a horse.
const ADVISOR: Table = table([
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, -5, 0, -5, 0, 0, 0],
    [0, 0, 0, 0, 8, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
]);

/// Elephant: the central elephant (`e2`) guards both flanks; elephants on the edge or on the
/// river bank are off the defence.
const ELEPHANT: Table = table([
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, -5, 0, 0, 0, -5, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [-5, 0, 0, 0, 10, 0, 0, 0, -5],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
]);

/// Horse: wants to cross the river towards the enemy palace (the squares beside it, from which
/// it checks or pins advisors, score highest); poor on the edge, and very poor in its own palace
/// centre (`e1`, where it blocks the king and advisors).
const HORSE: Table = table([
    [0, -5, 10, 5, -5, 5, 10, -5, 0],
    [5, 20, 40, 25, 10, 25, 40, 20, 5],
    [10, 25, 35, 45, 35, 45, 35, 25, 10],
    [10, 30, 40, 45, 45, 45, 40, 30, 10],
    [5, 20, 30, 35, 35, 35, 30, 20, 5],
    [0, 10, 20, 20, 25, 20, 20, 10, 0],
    [0, 5, 15, 10, 15, 10, 15, 5, 0],
    [-5, 0, 10, 5, 0, 5, 10, 0, -5],
    [-10, -5, 0, -5, -30, -5, 0, -5, -10],
    [-15, -10, -5, -10, -20, -10, -5, -10, -15],
]);

/// Rook: the rib files (`d`, `f`) and the river banks are its working squares, the enemy's
/// second rank (pinning horses and advisors) its best; a rook still in its corner is undeveloped.
const ROOK: Table = table([
    [5, 10, 5, 15, 15, 15, 5, 10, 5],
    [10, 20, 15, 30, 25, 30, 15, 20, 10],
    [5, 15, 10, 25, 20, 25, 10, 15, 5],
    [5, 15, 10, 20, 20, 20, 10, 15, 5],
    [10, 20, 15, 20, 20, 20, 15, 20, 10],
    [10, 20, 15, 20, 20, 20, 15, 20, 10],
    [0, 10, 5, 15, 10, 15, 5, 10, 0],
    [-5, 5, 5, 10, 5, 10, 5, 5, -5],
    [-5, 5, 0, 10, 0, 10, 0, 5, -5],
    [-10, 5, 0, 10, 0, 10, 0, 5, -10],
]);

/// Cannon: the central file (the central cannon, aimed at the king through the centre) and the
/// enemy's back rank corners (the bottom cannon); inside the enemy palace it is a target.
const CANNON: Table = table([
    [10, 10, 0, -10, -15, -10, 0, 10, 10],
    [5, 5, 0, -5, -10, -5, 0, 5, 5],
    [5, 5, 0, -5, 5, -5, 0, 5, 5],
    [0, 5, 5, 0, 10, 0, 5, 5, 0],
    [0, 0, 0, 0, 10, 0, 0, 0, 0],
    [0, 5, 5, 0, 15, 0, 5, 5, 0],
    [0, 0, 0, 0, 10, 0, 0, 0, 0],
    [0, 5, 5, 10, 20, 10, 5, 5, 0],
    [0, 0, 0, 5, 5, 5, 0, 0, 0],
    [0, 0, 0, 5, 0, 5, 0, 0, 0],
]);

/// Soldier: worth little until it crosses the river (then it also moves sideways), most on the
/// ranks next to the enemy palace, little on the last rank (an "old soldier" can only go
/// sideways). On its own side only the central and third/seventh-file soldiers gain from
/// advancing (they open the horses' paths).
const SOLDIER_MG: Table = table([
    [0, 0, 0, 10, 20, 10, 0, 0, 0],
    [30, 50, 70, 100, 110, 100, 70, 50, 30],
    [30, 50, 70, 90, 100, 90, 70, 50, 30],
    [30, 45, 55, 70, 80, 70, 55, 45, 30],
    [20, 30, 40, 55, 60, 55, 40, 30, 20],
    [0, 0, 10, 0, 20, 0, 10, 0, 0],
    [0, 0, 0, 0, 5, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
]);

/// Soldier in the endgame: a crossed soldier is a major attacker once the big pieces are off,
/// and even an uncrossed one is a future one.
const SOLDIER_EG: Table = table([
    [5, 5, 10, 20, 30, 20, 10, 5, 5],
    [50, 70, 90, 120, 130, 120, 90, 70, 50],
    [50, 70, 90, 110, 120, 110, 90, 70, 50],
    [45, 60, 70, 85, 95, 85, 70, 60, 45],
    [35, 45, 55, 65, 70, 65, 55, 45, 35],
    [10, 10, 15, 10, 20, 10, 15, 10, 10],
    [5, 5, 5, 5, 10, 5, 5, 5, 5],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
]);

/// Flattens a table written as rows (rank 9 first) into the drawn order; see [`Table`].
const fn table(rows: [[i32; 9]; 10]) -> Table {
    let mut t = [0; 90];
    let mut i = 0;
    while i < 90 {
        t[i] = rows[i / 9][i % 9];
        i += 1;
    }
    t
}

/// Material plus piece-square bonus, `[colour][kind][square]`, precomputed at compile time.
static PSQ: [[[S; 90]; 7]; 2] = psq();

const fn psq() -> [[[S; 90]; 7]; 2] {
    let mg: [&Table; 7] = [&KING_MG, &ADVISOR, &ELEPHANT, &HORSE, &ROOK, &CANNON, &SOLDIER_MG];
    let eg: [&Table; 7] = [&KING_EG, &ADVISOR, &ELEPHANT, &HORSE, &ROOK, &CANNON, &SOLDIER_EG];
    let mut out = [[[s(0, 0); 90]; 7]; 2];
    let mut k = 0;
    while k < 7 {
        let mut sq = 0;
        while sq < 90 {
            let (file, rank) = (sq % 9, sq / 9);
            // Red: rank r is row 9 - r. Black sees the board rotated: its rank r is Red's
            // 9 - r, its file f is Red's 8 - f.
            let red = (9 - rank) * 9 + file;
            let black = rank * 9 + (8 - file);
            out[0][k][sq] = s(MATERIAL[k].mg + mg[k][red], MATERIAL[k].eg + eg[k][red]);
            out[1][k][sq] = s(MATERIAL[k].mg + mg[k][black], MATERIAL[k].eg + eg[k][black]);
            sq += 1;
        }
        k += 1;
    }
    out
}

/// Game phase weight of a rook; horses and cannons weigh [`PHASE_MINOR`].
const PHASE_ROOK: i32 = 4;
/// Game phase weight of a horse or a cannon.
const PHASE_MINOR: i32 = 2;
/// The game phase with every rook, horse and cannon on the board (32).
pub const PHASE_MAX: i32 = 2 * (2 * PHASE_ROOK + 4 * PHASE_MINOR);

/// How much of the middlegame is left: [`PHASE_MAX`] with every rook, horse and cannon on the
/// board, 0 with none.
#[must_use]
pub fn phase(pos: &Position) -> i32 {
    let rooks = pos.kind(Kind::Rook).count() as i32;
    let minors = (pos.kind(Kind::Horse) | pos.kind(Kind::Cannon)).count() as i32;
    phase_of(rooks, minors)
}

/// [`phase`] from the numbers of rooks and of horses and cannons on the board.
const fn phase_of(rooks: i32, minors: i32) -> i32 {
    let p = rooks * PHASE_ROOK + minors * PHASE_MINOR;
    if p < PHASE_MAX { p } else { PHASE_MAX }
}

/// Rook mobility: per reachable square (empty or enemy), around a typical count of 7. A rook's
/// worth is its reach; a rook shut in behind its own pieces is worth much less than an open one.
const ROOK_MOBILITY: S = s(4, 4);
const ROOK_MOBILITY_BASE: i32 = 7;

/// Horse mobility by number of reachable squares (legs free, not onto own pieces): a horse with
/// its legs blocked ("hobbled") is nearly useless and easily trapped.
const HORSE_MOBILITY: [S; 9] =
    [s(-40, -40), s(-25, -25), s(-10, -10), s(0, 0), s(6, 6), s(11, 11), s(15, 15), s(18, 18), s(20, 20)];

/// Cannon mobility: per empty square it can move to, around a typical count of 6. A cannon needs
/// room to switch lines; it matters less than for a rook since the cannon fights through screens.
const CANNON_MOBILITY: S = s(2, 2);
const CANNON_MOBILITY_BASE: i32 = 6;

/// Two crossed soldiers side by side defend each other and close the enemy king's escape
/// squares together.
const CONNECTED_SOLDIERS: S = s(15, 25);

/// A crossed soldier at the enemy palace (ranks 7-9 there, files `c`..`g`), per missing enemy
/// advisor: advisors are what stops soldiers entering the palace.
const SOLDIER_VS_THIN_PALACE: S = s(10, 20);

/// King attack: weight of one attacked square of the enemy palace, by attacker kind (rook, horse,
/// cannon, soldier).
const ATTACK_WEIGHT_ROOK: i32 = 3;
const ATTACK_WEIGHT_HORSE: i32 = 3;
const ATTACK_WEIGHT_CANNON: i32 = 2;
const ATTACK_WEIGHT_SOLDIER: i32 = 2;
/// King attack units added per missing enemy advisor and elephant, once an attack is on.
const ATTACK_MISSING_ADVISOR: i32 = 3;
const ATTACK_MISSING_ELEPHANT: i32 = 2;
/// Cap on the king-attack bonus (middlegame); the endgame half is half of it.
const ATTACK_MAX: i32 = 250;

/// Missing advisors and elephants, per missing piece, per enemy attacker that exploits it:
/// advisors hold off rooks and horses, elephants hold off cannons (they give the king's
/// defenders screens to hide behind, and cover the squares a cannon would aim from).
const MISSING_ADVISOR_VS_ROOK: S = s(15, 25);
const MISSING_ADVISOR_VS_HORSE: S = s(10, 20);
const MISSING_ELEPHANT_VS_CANNON: S = s(15, 15);
const MISSING_ELEPHANT_VS_ROOK: S = s(5, 5);

/// An enemy cannon on the king's file or rank with nothing in between (the hollow cannon): the
/// king's own defenders cannot step onto that line without becoming a screen, which is why a
/// hollow central cannon is among the strongest attacking setups.
const HOLLOW_CANNON: S = s(60, 30);
/// An enemy cannon aimed at the king through two pieces: a pin on the nearer of them, and a
/// discovered check whenever the enemy's own piece among them moves.
const CANNON_TWO_SCREENS: S = s(15, 10);
/// An enemy rook on the king's file or rank behind exactly one piece: that piece is pinned.
const ROOK_PIN_ON_KING: S = s(15, 10);
/// The king's file open in front of it (no piece of ours between the king and the enemy side),
/// per enemy rook: a rook can come to that file and tie the king down.
const OPEN_KING_FILE: S = s(20, 10);

/// Bonus for the side to move (it is a tempo ahead of the static picture).
const TEMPO: i32 = 10;

/// Squares of each colour's palace, `[Red, Black]`.
static PALACE: [u128; 2] = palaces();

const fn palaces() -> [u128; 2] {
    let mut p = [0u128; 2];
    let mut f = 3;
    while f <= 5 {
        let mut r = 0;
        while r < 3 {
            p[0] |= 1u128 << (r * 9 + f);
            p[1] |= 1u128 << ((9 - r) * 9 + f);
            r += 1;
        }
        f += 1;
    }
    p
}

/// The ranks beyond the river for each colour, `[Red, Black]`.
static ENEMY_HALF: [u128; 2] = [((1u128 << 90) - 1) & !((1u128 << 45) - 1), (1u128 << 45) - 1];

/// The squares at and around each colour's palace from which enemy soldiers threaten it: ranks
/// 0-2 for Red's palace (7-9 for Black's), files `c`..`g`. `[Red, Black]`.
static PALACE_APPROACH: [u128; 2] = approaches();

const fn approaches() -> [u128; 2] {
    let mut p = [0u128; 2];
    let mut f = 2;
    while f <= 6 {
        let mut r = 0;
        while r < 3 {
            p[0] |= 1u128 << (r * 9 + f);
            p[1] |= 1u128 << ((9 - r) * 9 + f);
            r += 1;
        }
        f += 1;
    }
    p
}

/// The squares of file `a`; shifted left by `f` for file `f`.
const FILE_A: u128 = {
    let mut m = 0u128;
    let mut r = 0;
    while r < 10 {
        m |= 1u128 << (r * 9);
        r += 1;
    }
    m
};

/// Number of squares of `palace_of`'s palace in `att`. The palace's nine squares lie within 21
/// consecutive bits, so a 32-bit count does.
#[inline]
fn palace_hits(att: u128, palace_of: Color) -> i32 {
    let shift = if palace_of == Color::Red { 3 } else { 66 };
    (((att & PALACE[palace_of.index()]) >> shift) as u32).count_ones() as i32
}

/// Number of pieces strictly between two squares on one file or rank.
#[inline]
fn pieces_between(occ: u128, a: Square, b: Square) -> u32 {
    (attacks::between(a, b) & occ).count_ones()
}

/// What one side's pass over its pieces gathers for the terms that need both sides.
#[derive(Default)]
struct SideInfo {
    /// Pieces by [`Kind`] index.
    count: [i32; 7],
    /// Weighted attacked squares of the enemy palace.
    attack_units: i32,
    /// Number of pieces taking part in the attack.
    attackers: i32,
}

impl SideInfo {
    fn n(&self, kind: Kind) -> i32 {
        self.count[kind.index()]
    }

    /// Attacking force for the drawishness scale: what can still cross the river and take
    /// part in a mate (rook 4, horse or cannon 2, soldier 1).
    fn attack_force(&self) -> i32 {
        4 * self.n(Kind::Rook) + 2 * (self.n(Kind::Horse) + self.n(Kind::Cannon)) + self.n(Kind::Soldier)
    }

    /// Advisors and elephants.
    fn defenders(&self) -> i32 {
        self.n(Kind::Advisor) + self.n(Kind::Elephant)
    }
}

/// Records one attacker's hits on the enemy palace.
#[inline]
fn add_attack(info: &mut SideInfo, weight: i32, hits: i32) {
    if hits > 0 {
        info.attack_units += weight * hits;
        info.attackers += 1;
    }
}

/// Material, piece-square, mobility and soldier terms of `us`, with the piece counts and the
/// attack on the enemy palace gathered into `info`.
#[inline]
fn side_terms(pos: &Position, us: Color, info: &mut SideInfo) -> S {
    let them = !us;
    let (occ, occ_t) = (pos.occupied().0, pos.occupied_rotated());
    let not_own = !pos.pieces_of(us).0;
    let psq = &PSQ[us.index()];
    let mut score = psq[Kind::King.index()][pos.king(us).index()];
    info.count[Kind::King.index()] = 1;

    for kind in [Kind::Advisor, Kind::Elephant] {
        for sq in pos.pieces(us, kind) {
            score += psq[kind.index()][sq.index()];
            info.count[kind.index()] += 1;
        }
    }
    for sq in pos.pieces(us, Kind::Rook) {
        score += psq[Kind::Rook.index()][sq.index()];
        info.count[Kind::Rook.index()] += 1;
        let att = pos.attacks_from(sq).0;
        score += ROOK_MOBILITY * ((att & not_own).count_ones() as i32 - ROOK_MOBILITY_BASE);
        add_attack(info, ATTACK_WEIGHT_ROOK, palace_hits(att, them));
    }
    for sq in pos.pieces(us, Kind::Horse) {
        score += psq[Kind::Horse.index()][sq.index()];
        info.count[Kind::Horse.index()] += 1;
        let att = pos.attacks_from(sq).0;
        // A horse's targets lie within two ranks of it: 41 bits around the square.
        let near = ((att & not_own) >> sq.index().saturating_sub(20)) as u64;
        score += HORSE_MOBILITY[near.count_ones() as usize];
        add_attack(info, ATTACK_WEIGHT_HORSE, palace_hits(att, them));
    }
    for sq in pos.pieces(us, Kind::Cannon) {
        score += psq[Kind::Cannon.index()][sq.index()];
        info.count[Kind::Cannon.index()] += 1;
        // Moves: the empty squares before the screen. Attacks: the squares beyond it up to and
        // including the next piece, where an enemy piece can be taken or cannot step.
        let quiet = attacks::rook(sq, occ, occ_t) & !occ;
        score += CANNON_MOBILITY * (quiet.count_ones() as i32 - CANNON_MOBILITY_BASE);
        add_attack(info, ATTACK_WEIGHT_CANNON, palace_hits(attacks::cannon_control(sq, occ, occ_t), them));
    }
    let soldiers = pos.pieces(us, Kind::Soldier);
    for sq in soldiers {
        score += psq[Kind::Soldier.index()][sq.index()];
        info.count[Kind::Soldier.index()] += 1;
    }
    // Soldier structure, only for soldiers across the river (uncrossed ones cannot support
    // each other sideways).
    let crossed = soldiers.0 & ENEMY_HALF[us.index()];
    if crossed != 0 {
        // Pairs side by side on one rank: shift each soldier one file right (never off the
        // board's right edge into the next rank).
        let pairs = (crossed & !(FILE_A << 8)) << 1 & crossed;
        if pairs != 0 {
            score += CONNECTED_SOLDIERS * pairs.count_ones() as i32;
        }
        let near = crossed & PALACE_APPROACH[them.index()];
        if near != 0 {
            let missing = 2 - pos.pieces(them, Kind::Advisor).count() as i32;
            for sq in Bitboard(near) {
                score += SOLDIER_VS_THIN_PALACE * missing;
                add_attack(info, ATTACK_WEIGHT_SOLDIER, palace_hits(pos.attacks_from(sq).0, them));
            }
        }
    }
    score
}

/// King safety of `us` apart from the attack count: missing defenders against the attackers
/// that exploit them, the open king file, cannons and rooks lined up on the king.
#[inline]
fn king_shelter(pos: &Position, us: Color, ours: &SideInfo, theirs: &SideInfo) -> S {
    let them = !us;
    let ksq = pos.king(us);
    let (n_rooks, n_horses, n_cannons) = (theirs.n(Kind::Rook), theirs.n(Kind::Horse), theirs.n(Kind::Cannon));
    let mut score = S::default();

    let missing_advisors = 2 - ours.n(Kind::Advisor);
    let missing_elephants = 2 - ours.n(Kind::Elephant);
    score -= (MISSING_ADVISOR_VS_ROOK * n_rooks + MISSING_ADVISOR_VS_HORSE * n_horses) * missing_advisors;
    score -= (MISSING_ELEPHANT_VS_CANNON * n_cannons + MISSING_ELEPHANT_VS_ROOK * n_rooks) * missing_elephants;

    if n_rooks > 0 {
        // The king's file ahead of the king, up to the far edge (Red looks towards higher
        // square indices, Black towards lower ones).
        let file = attacks::line(ksq) & FILE_A << ksq.file();
        let below = (1u128 << ksq.index()) - 1;
        let ahead = if us == Color::Red { file & !below } else { file & below };
        if ahead & pos.pieces_of(us).0 == 0 {
            score -= OPEN_KING_FILE * n_rooks;
        }
    }

    // Cannons and rooks on the king's lines (rare: checked square by square).
    let lines = attacks::line(ksq);
    let occ = pos.occupied().0;
    for c in Bitboard(pos.pieces(them, Kind::Cannon).0 & lines) {
        match pieces_between(occ, c, ksq) {
            0 => score -= HOLLOW_CANNON,
            2 => score -= CANNON_TWO_SCREENS,
            _ => {}
        }
    }
    for r in Bitboard(pos.pieces(them, Kind::Rook).0 & lines) {
        if pieces_between(occ, r, ksq) == 1 {
            score -= ROOK_PIN_ON_KING;
        }
    }
    score
}

/// The king-attack bonus of the attacker described by `attacker` against a defender with the
/// guard `defender`.
#[inline]
fn king_attack(attacker: &SideInfo, defender: &SideInfo) -> S {
    if attacker.attackers == 0 {
        return S::default();
    }
    let missing_advisors = 2 - defender.n(Kind::Advisor);
    let missing_elephants = 2 - defender.n(Kind::Elephant);
    let units =
        attacker.attack_units + ATTACK_MISSING_ADVISOR * missing_advisors + ATTACK_MISSING_ELEPHANT * missing_elephants;
    // One attacker alone rarely mates; with two or more the danger grows with the square of the
    // pressure, as in chess king-danger tables.
    let bonus = if attacker.attackers >= 2 { (units * units / 4).min(ATTACK_MAX) } else { units * 2 };
    s(bonus, bonus / 2)
}

/// How much of an endgame advantage can be turned into a win, in sixteenths, for `strong`
/// against `weak`. Without attackers nobody mates; a lone horse, cannon or soldier cannot break
/// a defence of two or more advisors and elephants, and a lone rook cannot break the full one.
#[inline]
fn win_scale(strong: &SideInfo, weak: &SideInfo) -> i32 {
    let force = strong.attack_force();
    let defenders = weak.defenders();
    match force {
        0 => 0,
        1 | 2 if defenders >= 2 => 2,
        1 | 2 if defenders == 1 => 8,
        4 if strong.n(Kind::Rook) == 1 && defenders == 4 => 4,
        // Attacking force no greater than the defender's own: trading down does not win.
        _ if force <= weak.attack_force() && force <= 4 => 10,
        _ => 16,
    }
}

/// Static evaluation of `pos` from the side to move's view.
#[must_use]
pub fn evaluate(pos: &Position) -> i32 {
    let (mut red, mut black) = (SideInfo::default(), SideInfo::default());
    let mut score = side_terms(pos, Color::Red, &mut red);
    score -= side_terms(pos, Color::Black, &mut black);
    score += king_shelter(pos, Color::Red, &red, &black);
    score -= king_shelter(pos, Color::Black, &black, &red);
    score += king_attack(&red, &black);
    score -= king_attack(&black, &red);

    let rooks = red.n(Kind::Rook) + black.n(Kind::Rook);
    let minors = red.n(Kind::Horse) + red.n(Kind::Cannon) + black.n(Kind::Horse) + black.n(Kind::Cannon);
    let phase = phase_of(rooks, minors);
    let mut v = (score.mg * phase + score.eg * (PHASE_MAX - phase)) / PHASE_MAX;
    v = if v > 0 { v * win_scale(&red, &black) / 16 } else { v * win_scale(&black, &red) / 16 };

    let us = pos.side_to_move();
    (if us == Color::Red { v } else { -v }) + TEMPO
}

/// Plain material value of a piece standing on `sq`, for move ordering and quiescence pruning.
#[inline]
fn piece_value(kind: Kind, color: Color, sq: Square) -> i32 {
    if kind == Kind::Soldier && !sq.on_own_side(color) { CROSSED_SOLDIER } else { PIECE_VALUES[kind.index()] }
}

impl SearchGame for Game {
    const NULL_MOVE: bool = true;

    fn evaluate(&self) -> i32 {
        evaluate(self.position())
    }

    fn in_check(&self) -> bool {
        // Recorded with each move by the game layer: free.
        Game::in_check(self)
    }

    fn is_capture(&self, mv: &Move) -> bool {
        self.position().is_capture(*mv)
    }

    /// Most valuable victim first, then least valuable attacker. The victim's value is
    /// `capture_order / 16` (the search's delta pruning reads it that way).
    fn capture_order(&self, mv: &Move) -> i32 {
        let pos = self.position();
        let victim = pos.piece_at(mv.to()).map_or(0, |p| piece_value(p.kind, p.color, mv.to()));
        let attacker = pos.piece_at(mv.from()).map_or(0, |p| PIECE_VALUES[p.kind.index()]);
        victim * 16 + 15 - (attacker / 64).min(15)
    }

    fn move_id(mv: &Move) -> u32 {
        u32::from(mv.to_u16()) + 1
    }

    /// Every evasion in check; otherwise the captures, less those that give a more valuable
    /// piece for a defended one (they lose material unless something else is going on, which
    /// the main search, not quiescence, is there to find).
    fn quiescence_moves(&self) -> (MoveList, bool) {
        let pos = self.position();
        let mut moves = pos.legal_moves();
        if Game::in_check(self) {
            return (moves, false);
        }
        let them = !pos.side_to_move();
        moves.retain(|m| {
            let Some(victim) = pos.piece_at(m.to()) else { return false };
            let Some(attacker) = pos.piece_at(m.from()) else { return false };
            let (v, a) = (piece_value(victim.kind, victim.color, m.to()), PIECE_VALUES[attacker.kind.index()]);
            v >= a || pos.attackers_to(m.to(), them).is_empty()
        });
        (moves, true)
    }

    fn has_non_pawn_material(&self) -> bool {
        let pos = self.position();
        let us: Color = pos.side_to_move();
        [Kind::Rook, Kind::Horse, Kind::Cannon].iter().any(|&k| pos.pieces(us, k).is_nonempty())
    }

    fn play_null(&mut self) {
        Game::play_null(self);
    }

    fn rule_outcome(&self, root_ply: usize) -> Option<Outcome> {
        Game::rule_outcome(self, root_ply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(fen: &str) -> i32 {
        evaluate(&Position::from_fen(fen).expect(fen))
    }

    /// The colour-flipped FEN: board rotated, cases swapped, side to move swapped.
    fn flip(fen: &str) -> String {
        let mut parts = fen.split_whitespace();
        let board = parts.next().unwrap_or_default();
        let side = parts.next().unwrap_or("w");
        let rows: Vec<String> = board
            .split('/')
            .rev()
            .map(|row| {
                row.chars()
                    .rev()
                    .map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
                    .collect()
            })
            .collect();
        format!("{} {}", rows.join("/"), if side == "w" { "b" } else { "w" })
    }

    #[test]
    fn start_position_is_balanced() {
        assert_eq!(eval(xiangqi::START_FEN), TEMPO);
    }

    #[test]
    fn evaluation_is_colour_symmetric() {
        let fens = [
            "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
            "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w - - 0 1",
            "r2akab1r/3n5/4b3n/p1p1pRp1p/9/2P3P2/P3P3c/N2C3C1/4A4/1RBAK1B2 w - - 0 1",
            "4ka3/4a4/9/9/4N4/p8/9/4C3c/7n1/2BK5 w - - 0 1",
            "3k5/9/9/9/9/9/9/9/4A4/3AK1R2 w - - 0 1",
        ];
        for fen in fens {
            assert_eq!(eval(fen), eval(&flip(fen)), "{fen}");
        }
    }

    #[test]
    fn mirrored_position_evaluates_the_same() {
        // Left-right mirror: every table is symmetric, and so is every term.
        let fen = "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1";
        let board: Vec<String> =
            fen.split_whitespace().next().unwrap_or_default().split('/').map(|r| r.chars().rev().collect()).collect();
        assert_eq!(eval(fen), eval(&format!("{} w - - 0 1", board.join("/"))));
    }

    #[test]
    fn central_cannon_opening_is_good_for_red() {
        // After h2e2 it is Black's move, and Black should be worse by a little.
        let v = eval("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1");
        assert!((-80..0).contains(&v), "{v}");
    }

    #[test]
    fn bare_rook_against_full_defence_is_drawish() {
        let full = eval("2bakab2/9/9/9/9/9/9/9/9/3K2R2 w - - 0 1");
        let bare = eval("4k4/9/9/9/9/9/9/9/9/3K2R2 w - - 0 1");
        assert!(full < 400 && bare > 800, "{full} {bare}");
    }
}
