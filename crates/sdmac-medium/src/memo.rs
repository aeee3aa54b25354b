//! A memo of error-model results. The error model is a pure function of its inputs
//! (rate, SINR or signal and noise, bits), and a saturated medium asks it the same
//! questions again and again: the same link at the same rate and length, the same pair
//! of colliding frames. A direct-mapped table remembers the last answer per slot, keyed
//! by the exact inputs (floating-point values by their bits), so a hit returns the very
//! value the model would compute: results do not change, bit for bit.

use sdmac_phy::Rate;

/// Slots of the clean-reception table (a power of two; about 40 bytes each, allocated
/// on first use). Kept apart from the chunk table, whose keys vary far more (every
/// pair of colliding senders at every receiver), so that chunks never evict the
/// answers a clean medium asks for at every frame.
const CLEAN_SLOTS: usize = 256;
/// Slots of the chunk table.
const CHUNK_SLOTS: usize = 1024;

/// Which question a key asks (so that different questions never share an answer).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Question {
    /// Success probability of a whole frame without interference: [len, signal mW
    /// bits, noise mW bits].
    Clean,
    /// Success probability of one chunk: [SINR bits, bits, 0].
    Chunk,
}

#[derive(Copy, Clone, Debug)]
struct Entry {
    question: Question,
    rate: Rate,
    key: [u64; 3],
    value: f64,
}

/// The memo (see the module documentation).
#[derive(Clone, Debug, Default)]
pub(crate) struct Memo {
    clean: Vec<Option<Entry>>,
    chunk: Vec<Option<Entry>>,
    /// Scratch of the piece cutting in `reception` (the points where interference
    /// changes), kept to avoid an allocation per reception.
    pub points: Vec<u64>,
}

impl Memo {
    /// The remembered answer to (`question`, `rate`, `key`), or `compute()`'s, which
    /// is remembered.
    pub fn get_or(
        &mut self,
        question: Question,
        rate: Rate,
        key: [u64; 3],
        compute: impl FnOnce() -> f64,
    ) -> f64 {
        match self.get(question, rate, key) {
            Some(v) => v,
            None => {
                let value = compute();
                self.put(question, rate, key, value);
                value
            }
        }
    }

    /// The remembered answer to (`question`, `rate`, `key`), if any.
    pub fn get(&self, question: Question, rate: Rate, key: [u64; 3]) -> Option<f64> {
        let table = match question {
            Question::Clean => &self.clean,
            Question::Chunk => &self.chunk,
        };
        let e = table.get(slot_of(key, table.len()))?.as_ref()?;
        (e.question == question && e.rate == rate && e.key == key).then_some(e.value)
    }

    /// Remembers `value` as the answer to (`question`, `rate`, `key`).
    pub fn put(&mut self, question: Question, rate: Rate, key: [u64; 3], value: f64) {
        let (table, slots) = match question {
            Question::Clean => (&mut self.clean, CLEAN_SLOTS),
            Question::Chunk => (&mut self.chunk, CHUNK_SLOTS),
        };
        if table.is_empty() {
            *table = vec![None; slots];
        }
        table[slot_of(key, slots)] = Some(Entry { question, rate, key, value });
    }
}

/// The slot of a key in a table of `slots` slots (a power of two; any index when 0).
fn slot_of(key: [u64; 3], slots: usize) -> usize {
    let mut h = key[0].wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h = (h ^ key[1]).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    h = (h ^ key[2]).wrapping_mul(0x1656_67B1_9E37_79F9);
    (h >> 32) as usize & slots.wrapping_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hit_returns_the_first_answer_and_keys_are_exact() {
        let mut m = Memo::default();
        let r = Rate::Ofdm54;
        assert_eq!(m.get_or(Question::Chunk, r, [1, 2, 0], || 0.5), 0.5);
        assert_eq!(m.get_or(Question::Chunk, r, [1, 2, 0], || unreachable!()), 0.5);
        assert_eq!(m.get_or(Question::Clean, r, [1, 2, 0], || 0.25), 0.25);
        assert_eq!(m.get_or(Question::Chunk, Rate::Ofdm6, [1, 2, 0], || 0.75), 0.75);
        assert_eq!(m.get_or(Question::Chunk, r, [1, 3, 0], || 0.125), 0.125);
    }
}
