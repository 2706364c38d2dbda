"""Word lists behind the Chinese templates: antonyms (simplified and traditional), verbs.

ConceptNet's Chinese edges come mostly from the PTT pet game, written in traditional
characters; users' own graphs are often simplified. Each pair below is listed once in each
script where the two differ; both directions are derived.
"""

from __future__ import annotations

# Adjectives and nouns: used for a tail, or a word of it, when the graph has no Antonym edge.
_PAIRS = """
大:小 热:冷 熱:冷 高:矮 长:短 長:短 快:慢 湿:干 濕:乾 硬:软 硬:軟 重:轻 重:輕 新:旧 新:舊
多:少 好:坏 好:壞 甜:苦 胖:瘦 黑:白 亮:暗 干净:脏 乾淨:髒 安全:危险 安全:危險 快乐:悲伤
快樂:悲傷 开心:难过 開心:難過 富:穷 富:窮 早:晚 深:浅 深:淺 厚:薄 宽:窄 寬:窄 强:弱 強:弱
容易:困难 容易:困難 美丽:丑陋 美麗:醜陋 活:死 白天:黑夜 夏天:冬天 朋友:敌人 朋友:敵人
便宜:贵 便宜:貴 吵:安静 吵:安靜 健康:生病 真:假 满:空 滿:空 远:近 遠:近 热闹:冷清 熱鬧:冷清
温暖:寒冷 溫暖:寒冷 聪明:愚蠢 聰明:愚蠢 勇敢:胆小 勇敢:膽小 光滑:粗糙 新鲜:腐烂 新鮮:腐爛
""".split()
# Verbs: used for the verb of a verb phrase ("买菜" -> "卖菜").
_VERB_PAIRS = """
买:卖 買:賣 推:拉 爱:恨 愛:恨 开始:结束 開始:結束 赢:输 贏:輸 笑:哭 打开:关上 打開:關上
进:出 進:出 记得:忘记 記得:忘記 浮:沉 增加:减少 增加:減少 接受:拒绝 接受:拒絕 借:还 借:還
起床:睡觉 起床:睡覺 上升:下降 出生:死亡 喜欢:讨厌 喜歡:討厭
""".split()


def _table(pairs: list[str]) -> dict[str, str]:
    table: dict[str, str] = {}
    for pair in pairs:
        left, right = pair.split(":")
        table.setdefault(left, right)
        table.setdefault(right, left)
    return table


ANTONYMS = _table(_PAIRS)
VERB_ANTONYMS = _table(_VERB_PAIRS)

# First characters (or words) that make a concept read as a verb phrase when its URI has no
# part of speech: "吃饭", "寫字", "去学校".
COMMON_VERBS = frozenset(
    """
    吃 喝 做 看 听 聽 说 說 写 寫 读 讀 玩 跑 走 飞 飛 游 睡 洗 买 買 卖 賣 开 開 关 關 拿 放 切
    煮 烤 穿 用 去 来 來 学 學 教 打 唱 跳 画 畫 想 爱 愛 恨 笑 哭 坐 站 骑 騎 开车 開車 工作 休息
    学习 學習 保护 保護 照顾 照顧 帮助 幫助 旅行 运动 運動 购物 購物 搬 送 接 等 找 带 帶 修
    """.split()
)

# Degree words before an adjective ("很高"): known words, so the adjective after them is one too.
DEGREE = frozenset("很 非常 太 最 更 比较 比較 十分 特别 特別 有点 有點 挺 真".split())

# Words a greedy segmenter keeps whole, longest first, so an antonym replaces "干净", not "干".
VOCABULARY = frozenset(ANTONYMS) | frozenset(VERB_ANTONYMS) | COMMON_VERBS | DEGREE
