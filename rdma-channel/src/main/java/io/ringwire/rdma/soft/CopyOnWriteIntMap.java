package io.ringwire.rdma.soft;

import org.agrona.collections.Int2ObjectHashMap;

import java.util.ArrayList;
import java.util.List;

/**
 * A map from int keys (region keys, queue pair numbers) to objects that the data path reads and
 * the control path changes: each change copies the map and publishes the copy through a volatile
 * field, so a lookup takes no lock, boxes nothing and allocates nothing.
 *
 * <p>Threading: {@link #get} and {@link #containsKey} from any thread; changes are synchronized and
 * belong on the control path (each one copies the whole map).
 *
 * @param <V> the values.
 */
public final class CopyOnWriteIntMap<V>
{
    private volatile Int2ObjectHashMap<V> map = new Int2ObjectHashMap<>();

    /**
     * @param key the key.
     * @return its value, or null. Allocation-free.
     */
    public V get(final int key)
    {
        return map.get(key);
    }

    /**
     * @param key the key.
     * @return true when the key has a value.
     */
    public boolean containsKey(final int key)
    {
        return map.containsKey(key);
    }

    /**
     * @param key   the key.
     * @param value its value, replacing any other.
     */
    public synchronized void put(final int key, final V value)
    {
        final Int2ObjectHashMap<V> updated = new Int2ObjectHashMap<>(map);
        updated.put(key, value);
        map = updated;
    }

    /**
     * Removes the key whatever its value.
     *
     * @param key the key.
     */
    public synchronized void remove(final int key)
    {
        final Int2ObjectHashMap<V> updated = new Int2ObjectHashMap<>(map);
        updated.remove(key);
        map = updated;
    }

    /**
     * Removes the key only while it still maps to this value.
     *
     * @param key   the key.
     * @param value the value it must have.
     */
    public synchronized void remove(final int key, final V value)
    {
        if (map.get(key) == value)
        {
            remove(key);
        }
    }

    /**
     * @return the values at this moment, a copy (control path).
     */
    public List<V> values()
    {
        return new ArrayList<>(map.values());
    }
}
