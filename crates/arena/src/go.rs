//! Go matches between engines (our bot or GTP programs), scored by our scorer.
