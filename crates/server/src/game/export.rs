//! `baduk wall export`: finished Wall Go games from the database as record files, the input of
//! `baduk wall train` (seed 003 part 3 fits its evaluation on game records).

use crate::game::room::Room;
use crate::store::Store;
use std::path::Path;

/// Writes every finished Wall Go game of the database at `url` to `dir` as `<id>.wall`;
/// returns how many were written.
pub async fn export_wall(url: &str, dir: &Path) -> Result<usize, String> {
    let store = Store::open(url).await?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut n = 0;
    for id in store.finished("wallgo").await.map_err(|e| e.to_string())? {
        let Some(g) = store.load(&id).await.map_err(|e| e.to_string())? else {
            continue;
        };
        let room = Room::from_stored(&id, g).map_err(|e| format!("game {id}: {e}"))?;
        let path = dir.join(format!("{id}.wall"));
        std::fs::write(&path, room.record()).map_err(|e| format!("{}: {e}", path.display()))?;
        n += 1;
    }
    Ok(n)
}
