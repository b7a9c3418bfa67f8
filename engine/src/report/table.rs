//! Fixed-width text tables: the layout behind the pretty reporter's streamed rows.
//!
//! Widths are fixed up front so that rows can be printed one at a time as cases finish; a
//! cell wider than its column pushes the rest of its row right instead of being cut. Widths
//! count characters, so `µ`, `±` and `×` take one column each.

/// Which side of its column a cell sticks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    /// Text: padded on the right.
    Left,
    /// Numbers: padded on the left.
    Right,
}

/// One column: its title, width and alignment.
#[derive(Debug, Clone)]
pub(crate) struct Column {
    /// The title in the header row.
    title: &'static str,
    /// Width in characters, at least the title's.
    width: usize,
    /// How cells are padded.
    align: Align,
}

impl Column {
    /// A column at least `width` characters wide (widened to fit its title).
    pub(crate) fn new(title: &'static str, width: usize, align: Align) -> Self {
        Self {
            title,
            width: width.max(title.chars().count()),
            align,
        }
    }
}

/// A row layout: columns separated by two spaces.
#[derive(Debug, Clone)]
pub(crate) struct Table {
    /// The columns, left to right.
    columns: Vec<Column>,
}

/// What goes between two cells.
pub(crate) const GAP: &str = "  ";

impl Table {
    /// A table with these columns.
    pub(crate) fn new(columns: Vec<Column>) -> Self {
        Self { columns }
    }

    /// `text` padded to the width of column `index`.
    pub(crate) fn cell(&self, index: usize, text: &str) -> String {
        let column = &self.columns[index];
        match column.align {
            Align::Left => format!("{text:<width$}", width = column.width),
            Align::Right => format!("{text:>width$}", width = column.width),
        }
    }

    /// The cells padded and joined, without trailing spaces. Fewer cells than columns fill
    /// only the first columns.
    pub(crate) fn row<S: AsRef<str>>(&self, cells: &[S]) -> String {
        self.row_spanning(cells, 0, 1)
    }

    /// Like [`Table::row`], but `cells[at]` spans `span` columns, left-aligned across their
    /// widths and the gaps between them; the cells after it fill the columns after the span.
    pub(crate) fn row_spanning<S: AsRef<str>>(
        &self,
        cells: &[S],
        at: usize,
        span: usize,
    ) -> String {
        let mut padded = Vec::new();
        let mut column = 0;
        for (index, text) in cells.iter().enumerate() {
            let text = text.as_ref();
            if index == at && span > 1 {
                let last = (column + span).min(self.columns.len());
                let widths: usize = self.columns[column..last].iter().map(|c| c.width).sum();
                let width = widths + GAP.len() * (last - column).saturating_sub(1);
                padded.push(format!("{text:<width$}"));
                column = last;
            } else if column < self.columns.len() {
                padded.push(self.cell(column, text));
                column += 1;
            } else {
                padded.push(text.to_owned());
            }
        }
        padded.join(GAP).trim_end().to_owned()
    }

    /// The titles as a row.
    pub(crate) fn header(&self) -> String {
        let titles: Vec<&str> = self.columns.iter().map(|column| column.title).collect();
        self.row(&titles)
    }

    /// A horizontal rule under each column.
    pub(crate) fn rule(&self) -> String {
        let rules: Vec<String> = self
            .columns
            .iter()
            .map(|column| "─".repeat(column.width))
            .collect();
        rules.join(GAP)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-column table: a text column of width 6 and a number column of width 4.
    fn table() -> Table {
        Table::new(vec![
            Column::new("name", 6, Align::Left),
            Column::new("time", 4, Align::Right),
        ])
    }

    #[test]
    fn cells_are_padded_by_characters_and_aligned() {
        let table = table();
        assert_eq!(table.header(), "name    time");
        assert_eq!(table.row(&["a", "1 µs"]), "a       1 µs");
        assert_eq!(table.row(&["b", "2"]), "b          2");
        assert_eq!(table.rule(), "──────  ────");
    }

    #[test]
    fn wide_cells_push_instead_of_cutting_and_titles_widen_columns() {
        let table = table();
        assert_eq!(table.row(&["longname", "12345"]), "longname  12345");
        assert_eq!(table.row(&["x"]), "x");
        let three = Table::new(vec![
            Column::new("name", 6, Align::Left),
            Column::new("a", 4, Align::Right),
            Column::new("b", 4, Align::Left),
            Column::new("c", 2, Align::Right),
        ]);
        assert_eq!(three.row(&["x", "1", "2", "3"]), "x          1  2      3");
        assert_eq!(
            three.row_spanning(&["x", "spanning", "3"], 1, 2),
            "x       spanning     3"
        );
        let narrow = Table::new(vec![Column::new("overhead", 2, Align::Right)]);
        assert_eq!(narrow.cell(0, "1"), "       1");
    }
}
