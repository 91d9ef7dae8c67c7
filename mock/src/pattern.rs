//! A string made up to match a schema's `pattern`: the regular
//! expressions documents use for identifiers and codes (`^[A-Z]{3}-\d+$`,
//! `^(draft|final)$`), read as a small grammar — literals, escapes,
//! classes, groups with alternatives, quantifiers — and walked with a
//! seeded generator. A construct outside it (look-arounds, back
//! references) gives up; the caller then falls back to plain text, and
//! the string is checked against the pattern before it is used.

/// A string matching `pattern`, or `None` when the pattern uses a
/// construct this reader does not know or the made-up string does not
/// match.
pub fn sample(pattern: &str, rng: &mut fastrand::Rng) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut parser = Parser { chars, at: 0 };
    let node = parser.alternatives()?;
    if parser.at != parser.chars.len() {
        return None;
    }
    let mut out = String::new();
    node.write(rng, &mut out);
    let regex = regex_lite::Regex::new(pattern).ok()?;
    regex.is_match(&out).then_some(out)
}

/// A part of a pattern.
enum Node {
    /// One of these ranges of characters.
    Class(Vec<(char, char)>),
    /// These in order.
    Sequence(Vec<Node>),
    /// One of these.
    Choice(Vec<Node>),
    /// The node between `min` and `max` times.
    Repeat(Box<Node>, usize, usize),
    /// Nothing (an anchor).
    Empty,
}

impl Node {
    fn write(&self, rng: &mut fastrand::Rng, out: &mut String) {
        match self {
            Node::Class(ranges) => {
                let Some(&(low, high)) = ranges.get(rng.usize(..ranges.len().max(1))) else {
                    return;
                };
                let picked = rng.u32(u32::from(low)..=u32::from(high));
                out.push(char::from_u32(picked).unwrap_or(low));
            }
            Node::Sequence(nodes) => nodes.iter().for_each(|n| n.write(rng, out)),
            Node::Choice(nodes) => {
                if let Some(node) = nodes.get(rng.usize(..nodes.len().max(1))) {
                    node.write(rng, out);
                }
            }
            Node::Repeat(node, min, max) => {
                for _ in 0..rng.usize(*min..=*max) {
                    node.write(rng, out);
                }
            }
            Node::Empty => {}
        }
    }
}

struct Parser {
    chars: Vec<char>,
    at: usize,
}

const DIGITS: (char, char) = ('0', '9');
const WORD: [(char, char); 4] = [('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')];
/// What an open-ended quantifier (`*`, `+`, `{2,}`) repeats at most.
const OPEN_REPEAT: usize = 3;

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }

    fn alternatives(&mut self) -> Option<Node> {
        let mut choices = vec![self.sequence()?];
        while self.peek() == Some('|') {
            self.at += 1;
            choices.push(self.sequence()?);
        }
        Some(if choices.len() == 1 {
            choices.remove(0)
        } else {
            Node::Choice(choices)
        })
    }

    fn sequence(&mut self) -> Option<Node> {
        let mut nodes = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            nodes.push(self.quantified(atom)?);
        }
        Some(Node::Sequence(nodes))
    }

    fn atom(&mut self) -> Option<Node> {
        match self.next()? {
            '^' | '$' => Some(Node::Empty),
            '.' => Some(Node::Class(vec![('a', 'z')])),
            '(' => {
                if self.peek() == Some('?') {
                    // Only a non-capturing group; look-arounds give up.
                    self.at += 1;
                    if self.next()? != ':' {
                        return None;
                    }
                }
                let inner = self.alternatives()?;
                (self.next()? == ')').then_some(inner)
            }
            '[' => self.class(),
            '\\' => self.escape().map(Node::Class),
            '*' | '+' | '?' | '{' | ')' => None,
            literal => Some(Node::Class(vec![(literal, literal)])),
        }
    }

    /// A class after its `[`; a negated one gives up.
    fn class(&mut self) -> Option<Node> {
        if self.peek() == Some('^') {
            return None;
        }
        let mut ranges = Vec::new();
        let mut first = true;
        loop {
            let c = self.next()?;
            if c == ']' && !first {
                break;
            }
            first = false;
            let low = if c == '\\' {
                let escaped = self.escape()?;
                if escaped.len() != 1 || escaped[0].0 != escaped[0].1 {
                    ranges.extend(escaped);
                    continue;
                }
                escaped[0].0
            } else {
                c
            };
            if self.peek() == Some('-') && self.chars.get(self.at + 1).is_some_and(|c| *c != ']') {
                self.at += 1;
                let high = match self.next()? {
                    '\\' => self.escape()?.first()?.0,
                    high => high,
                };
                if high < low {
                    return None;
                }
                ranges.push((low, high));
            } else {
                ranges.push((low, low));
            }
        }
        (!ranges.is_empty()).then_some(Node::Class(ranges))
    }

    /// What an escape after its `\` stands for.
    fn escape(&mut self) -> Option<Vec<(char, char)>> {
        Some(match self.next()? {
            'd' => vec![DIGITS],
            'w' => WORD.to_vec(),
            's' => vec![(' ', ' ')],
            'n' => vec![('\n', '\n')],
            't' => vec![('\t', '\t')],
            c if c.is_ascii_alphanumeric() => return None,
            c => vec![(c, c)],
        })
    }

    fn quantified(&mut self, atom: Node) -> Option<Node> {
        let (min, max) = match self.peek() {
            Some('*') => (0, OPEN_REPEAT),
            Some('+') => (1, OPEN_REPEAT),
            Some('?') => (0, 1),
            Some('{') => {
                self.at += 1;
                let min = self.number()?;
                let max = match self.next()? {
                    '}' => return self.lazy(Node::Repeat(Box::new(atom), min, min)),
                    ',' if self.peek() == Some('}') => min.max(OPEN_REPEAT),
                    ',' => self.number()?,
                    _ => return None,
                };
                if self.next()? != '}' || max < min {
                    return None;
                }
                return self.lazy(Node::Repeat(Box::new(atom), min, max));
            }
            _ => return Some(atom),
        };
        self.at += 1;
        self.lazy(Node::Repeat(Box::new(atom), min, max))
    }

    /// Skips a lazy quantifier's `?`, which changes nothing here.
    fn lazy(&mut self, node: Node) -> Option<Node> {
        if self.peek() == Some('?') {
            self.at += 1;
        }
        Some(node)
    }

    fn number(&mut self) -> Option<usize> {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.at += 1;
        }
        self.chars[start..self.at]
            .iter()
            .collect::<String>()
            .parse()
            .ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn made_up_strings_match_the_patterns_documents_use() {
        let mut rng = fastrand::Rng::with_seed(7);
        for pattern in [
            r"^[A-Z]{3}-\d+$",
            "^(draft|final)$",
            r"^[a-z0-9_-]{1,20}$",
            r"^\+?[1-9]\d{1,14}$",
            r"^[A-Z]{2}(?:[0-9]{2}){2,3}$",
            "^#[0-9a-fA-F]{6}$",
            r"^\S+@\S+$",
        ] {
            for _ in 0..20 {
                let Some(text) = sample(pattern, &mut rng) else {
                    continue;
                };
                assert!(
                    regex_lite::Regex::new(pattern).unwrap().is_match(&text),
                    "{pattern}: {text}"
                );
            }
        }
        assert!(sample(r"^[A-Z]{3}-\d+$", &mut rng).is_some());
        assert!(sample("^(draft|final)$", &mut rng).is_some());
    }

    #[test]
    fn a_construct_it_does_not_know_gives_up() {
        let mut rng = fastrand::Rng::with_seed(1);
        assert_eq!(sample("^(?=a)b$", &mut rng), None);
        assert_eq!(sample(r"^(a)\1$", &mut rng), None);
        assert_eq!(sample("^[^a]$", &mut rng), None);
    }
}
