//! Tiny games for the search tests: an explicit game tree (any shape,
//! including one side moving twice in a row), a subtraction game and
//! tic-tac-toe. They are no variant of the list (`rules::Variant`): they
//! have no id and never leave the tests.

use rules::{ActionError, EndReason, Game, Outcome, Player, PositionError};

/// One node of an explicit game tree.
#[derive(Clone, Copy, Debug)]
pub enum Spec {
    /// `to_move` chooses among `children` (indices into the table).
    Move {
        to_move: Player,
        children: &'static [usize],
    },
    /// Game over; `to_move` is the side that would move next.
    End {
        to_move: Player,
        winner: Option<Player>,
    },
}

/// A game given as an explicit tree; action `i` goes to `children[i]`.
#[derive(Clone, Debug)]
pub struct TableGame {
    pub table: &'static [Spec],
    pub node: usize,
    pub ply: u32,
}

impl TableGame {
    pub fn new(table: &'static [Spec]) -> Self {
        TableGame {
            table,
            node: 0,
            ply: 0,
        }
    }
}

/// A toy game's move: its action number.
fn number_move(text: &str) -> Result<Vec<u8>, ActionError> {
    text.parse::<u8>()
        .map(|a| vec![a])
        .map_err(|e| ActionError::Malformed {
            text: text.into(),
            reason: rules::NotationError::NotANumber(e.to_string()),
        })
}

fn no_text<T>() -> Result<T, PositionError> {
    Err(PositionError::Illegal(
        "toy games have no position text".into(),
    ))
}

impl Game for TableGame {
    type Action = u8;

    fn start() -> Self {
        TableGame::new(&[Spec::End {
            to_move: Player::First,
            winner: None,
        }])
    }
    fn from_text(_text: &str) -> Result<Self, PositionError> {
        no_text()
    }
    fn to_text(&self) -> String {
        format!("node {}", self.node)
    }
    fn side_to_move(&self) -> Player {
        match self.table[self.node] {
            Spec::Move { to_move, .. } | Spec::End { to_move, .. } => to_move,
        }
    }
    fn legal_actions(&self, out: &mut Vec<u8>) {
        out.clear();
        if let Spec::Move { children, .. } = self.table[self.node] {
            out.extend((0..children.len()).map(|i| i as u8));
        }
    }
    fn play(&mut self, action: u8) {
        if let Spec::Move { children, .. } = self.table[self.node] {
            self.node = children[action as usize];
            self.ply += 1;
        }
    }
    fn outcome(&self) -> Option<Outcome> {
        match self.table[self.node] {
            Spec::End {
                winner: Some(w), ..
            } => Some(Outcome::win(w, EndReason::Checkmate)),
            Spec::End { winner: None, .. } => Some(Outcome::draw(EndReason::Stalemate)),
            Spec::Move { .. } => None,
        }
    }
    fn position_hash(&self) -> u64 {
        self.node as u64
    }
    fn ply(&self) -> u32 {
        self.ply
    }
    fn action_to_text(&self, action: u8) -> String {
        action.to_string()
    }
    fn parse_move(&self, text: &str) -> Result<Vec<u8>, ActionError> {
        number_move(text)
    }
}

/// Subtraction game: take 1..=3 from a pile; whoever takes the last wins.
/// The side to move loses exactly when `pile % 4 == 0`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subtract {
    pub pile: u8,
    pub to_move: Player,
    pub ply: u32,
}

impl Subtract {
    pub fn new(pile: u8) -> Self {
        Subtract {
            pile,
            to_move: Player::First,
            ply: 0,
        }
    }
}

impl Game for Subtract {
    /// How many to take.
    type Action = u8;

    fn start() -> Self {
        Subtract::new(9)
    }
    fn from_text(_text: &str) -> Result<Self, PositionError> {
        no_text()
    }
    fn to_text(&self) -> String {
        format!("{} {:?}", self.pile, self.to_move)
    }
    fn side_to_move(&self) -> Player {
        self.to_move
    }
    fn legal_actions(&self, out: &mut Vec<u8>) {
        out.clear();
        out.extend((1..=3).filter(|&t| t <= self.pile));
    }
    fn play(&mut self, action: u8) {
        self.pile = self.pile.saturating_sub(action);
        self.to_move = self.to_move.opponent();
        self.ply += 1;
    }
    fn outcome(&self) -> Option<Outcome> {
        (self.pile == 0).then(|| Outcome::win(self.to_move.opponent(), EndReason::Checkmate))
    }
    fn position_hash(&self) -> u64 {
        u64::from(self.pile) * 2 + self.to_move.index() as u64
    }
    fn ply(&self) -> u32 {
        self.ply
    }
    fn action_to_text(&self, action: u8) -> String {
        action.to_string()
    }
    fn parse_move(&self, text: &str) -> Result<Vec<u8>, ActionError> {
        number_move(text)
    }
}

/// Tic-tac-toe; `First` is X. Squares 0..9 row by row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TicTacToe {
    /// 0 empty, 1 X (First), 2 O (Second).
    pub board: [u8; 9],
    pub to_move: Player,
    pub ply: u32,
}

const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

impl TicTacToe {
    /// A position from a 9-character board (`x`, `o`, `.`), X to move when
    /// the counts are equal.
    pub fn from_board(text: &str) -> Self {
        let mut board = [0u8; 9];
        for (cell, ch) in board.iter_mut().zip(text.chars()) {
            *cell = match ch {
                'x' => 1,
                'o' => 2,
                _ => 0,
            };
        }
        let xs = board.iter().filter(|&&c| c == 1).count();
        let os = board.iter().filter(|&&c| c == 2).count();
        let to_move = if xs == os {
            Player::First
        } else {
            Player::Second
        };
        TicTacToe {
            board,
            to_move,
            ply: (xs + os) as u32,
        }
    }

    fn winner(&self) -> Option<Player> {
        LINES.iter().find_map(|l| {
            let c = self.board[l[0]];
            (c != 0 && c == self.board[l[1]] && c == self.board[l[2]]).then_some({
                if c == 1 {
                    Player::First
                } else {
                    Player::Second
                }
            })
        })
    }
}

impl Game for TicTacToe {
    type Action = u8;

    fn start() -> Self {
        TicTacToe::from_board(".........")
    }
    fn from_text(_text: &str) -> Result<Self, PositionError> {
        no_text()
    }
    fn to_text(&self) -> String {
        self.board
            .iter()
            .map(|&c| ['.', 'x', 'o'][c as usize])
            .collect()
    }
    fn side_to_move(&self) -> Player {
        self.to_move
    }
    fn legal_actions(&self, out: &mut Vec<u8>) {
        out.clear();
        if self.outcome().is_none() {
            out.extend((0..9u8).filter(|&s| self.board[s as usize] == 0));
        }
    }
    fn play(&mut self, action: u8) {
        self.board[action as usize] = if self.to_move == Player::First { 1 } else { 2 };
        self.to_move = self.to_move.opponent();
        self.ply += 1;
    }
    fn outcome(&self) -> Option<Outcome> {
        if let Some(w) = self.winner() {
            Some(Outcome::win(w, EndReason::Checkmate))
        } else if self.board.iter().all(|&c| c != 0) {
            Some(Outcome::draw(EndReason::Stalemate))
        } else {
            None
        }
    }
    fn position_hash(&self) -> u64 {
        self.board.iter().fold(0u64, |h, &c| h * 3 + u64::from(c))
    }
    fn ply(&self) -> u32 {
        self.ply
    }
    fn action_to_text(&self, action: u8) -> String {
        action.to_string()
    }
    fn parse_move(&self, text: &str) -> Result<Vec<u8>, ActionError> {
        number_move(text)
    }
}

/// Misère take-away with extra turns: take 1..=3 from a pile; taking
/// exactly 1 keeps the turn (the same side moves again); whoever takes the
/// last object loses. A small game whose turns do not alternate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtraTurn {
    pub pile: u8,
    pub to_move: Player,
    /// The side that played the last action (`None` at the start).
    pub last_mover: Option<Player>,
    pub ply: u32,
}

impl ExtraTurn {
    pub fn new(pile: u8) -> Self {
        ExtraTurn {
            pile,
            to_move: Player::First,
            last_mover: None,
            ply: 0,
        }
    }

    /// Exact value for the side to move (1 win, -1 loss) by plain minimax
    /// over the pile, comparing sides rather than alternating.
    pub fn solve(pile: u8) -> f32 {
        if pile == 0 {
            // Only reached at the start position; nobody took anything.
            return 0.0;
        }
        (1..=3u8)
            .filter(|&a| a <= pile)
            .map(|a| ExtraTurn::action_value(pile, a))
            .fold(f32::NEG_INFINITY, f32::max)
    }

    /// Exact value for the mover of taking `a` from `pile`.
    pub fn action_value(pile: u8, a: u8) -> f32 {
        let rest = pile - a;
        if rest == 0 {
            -1.0
        } else if a == 1 {
            ExtraTurn::solve(rest)
        } else {
            -ExtraTurn::solve(rest)
        }
    }
}

impl Game for ExtraTurn {
    /// How many to take.
    type Action = u8;

    fn start() -> Self {
        ExtraTurn::new(7)
    }
    fn from_text(_text: &str) -> Result<Self, PositionError> {
        no_text()
    }
    fn to_text(&self) -> String {
        format!("{} {:?}", self.pile, self.to_move)
    }
    fn side_to_move(&self) -> Player {
        self.to_move
    }
    fn legal_actions(&self, out: &mut Vec<u8>) {
        out.clear();
        if self.pile > 0 {
            out.extend((1..=3).filter(|&t| t <= self.pile));
        }
    }
    fn play(&mut self, action: u8) {
        self.pile = self.pile.saturating_sub(action);
        self.last_mover = Some(self.to_move);
        if action != 1 {
            self.to_move = self.to_move.opponent();
        }
        self.ply += 1;
    }
    fn outcome(&self) -> Option<Outcome> {
        match (self.pile, self.last_mover) {
            (0, Some(taker)) => Some(Outcome::win(taker.opponent(), EndReason::Checkmate)),
            (0, None) => Some(Outcome::draw(EndReason::Stalemate)),
            _ => None,
        }
    }
    fn position_hash(&self) -> u64 {
        u64::from(self.pile) * 2 + self.to_move.index() as u64
    }
    fn ply(&self) -> u32 {
        self.ply
    }
    fn action_to_text(&self, action: u8) -> String {
        action.to_string()
    }
    fn parse_move(&self, text: &str) -> Result<Vec<u8>, ActionError> {
        number_move(text)
    }
}

/// A random finite game tree drawn from a seed: each position's shape (a
/// game end and its winner, 1-4 actions, whose turn is next, sometimes the
/// same side's again) is a hash of the seed and the path to it, so any
/// number of trees can be tested against exact minimax.
#[derive(Clone, Debug)]
pub struct HashGame {
    /// Hash of the path from the root.
    pub node: u64,
    pub depth: u32,
    pub max_depth: u32,
    pub to_move: Player,
}

impl HashGame {
    pub fn new(seed: u64, max_depth: u32) -> Self {
        HashGame {
            node: seed,
            depth: 0,
            max_depth,
            to_move: Player::First,
        }
    }

    fn hash(&self, salt: u64) -> u64 {
        // SplitMix64 finaliser.
        let mut z = self.node ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn over(&self) -> bool {
        self.depth >= self.max_depth || (self.depth > 0 && self.hash(1).is_multiple_of(6))
    }

    /// The exact value for `player` by minimax: 1 won, 0 drawn, -1 lost.
    pub fn solve(&self, player: Player) -> i32 {
        if let Some(o) = self.outcome() {
            return o.value_for(player) as i32;
        }
        let values = self.legal_vec().into_iter().map(|a| {
            let mut next = self.clone();
            next.play(a);
            next.solve(player)
        });
        if self.to_move == player {
            values.max().unwrap()
        } else {
            values.min().unwrap()
        }
    }
}

impl Game for HashGame {
    type Action = u8;

    fn start() -> Self {
        HashGame::new(0, 6)
    }
    fn from_text(_text: &str) -> Result<Self, PositionError> {
        no_text()
    }
    fn to_text(&self) -> String {
        format!("node {:x}", self.node)
    }
    fn side_to_move(&self) -> Player {
        self.to_move
    }
    fn legal_actions(&self, out: &mut Vec<u8>) {
        out.clear();
        if !self.over() {
            out.extend(0..1 + (self.hash(2) % 4) as u8);
        }
    }
    fn play(&mut self, action: u8) {
        self.node = self.hash(3 + u64::from(action));
        self.depth += 1;
        // One position in eight keeps the turn (a split turn).
        if !self.hash(4).is_multiple_of(8) {
            self.to_move = self.to_move.opponent();
        }
    }
    fn outcome(&self) -> Option<Outcome> {
        if !self.over() {
            return None;
        }
        Some(match self.hash(5) % 5 {
            0 | 1 => Outcome::win(Player::First, EndReason::Checkmate),
            2 | 3 => Outcome::win(Player::Second, EndReason::Checkmate),
            _ => Outcome::draw(EndReason::Stalemate),
        })
    }
    fn position_hash(&self) -> u64 {
        self.node
    }
    fn ply(&self) -> u32 {
        self.depth
    }
    fn action_to_text(&self, action: u8) -> String {
        action.to_string()
    }
    fn parse_move(&self, text: &str) -> Result<Vec<u8>, ActionError> {
        number_move(text)
    }
}
